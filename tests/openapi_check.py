"""Check an answer of the table server against its OpenAPI document.

``check_answer(answer)`` finds the documented operation of the request's path and
method, and asserts that the status, the content type and (for JSON) the body are those
the document gives. An ``httpx`` client with ``event_hooks={"response": [check_answer]}``
checks every answer it receives.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import allegra_rules

if TYPE_CHECKING:
    import httpx

# Read as a file: importing allegra_rules.server needs the extra 'server'.
DOC: dict[str, Any] = json.loads(
    (Path(allegra_rules.__file__).parent / "server" / "openapi.json").read_text(encoding="utf-8")
)


@cache
def _templates() -> list[tuple[re.Pattern[str], str]]:
    """Each documented path as a pattern (``{name}``: one path segment)."""
    return [
        (re.compile("^" + re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(path)) + "$"), path)
        for path in DOC["paths"]
    ]


def documented_path(path: str) -> str | None:
    """The documented path template ``path`` belongs to, or ``None``."""
    found = [template for pattern, template in _templates() if pattern.match(path)]
    # A literal path wins over a template that also matches it.
    found.sort(key=lambda template: template.count("{"))
    return found[0] if found else None


def check_answer(answer: httpx.Response, path: str | None = None) -> httpx.Response:
    """Assert that ``answer`` is what the document says (``path``: the template, if known).

    An answer to a path or method the document does not name must be the error shape.
    """
    answer.read()
    assert answer.status_code < 500 or answer.status_code == 503, answer.text
    template = path or documented_path(answer.request.url.path)
    operation = DOC["paths"].get(template, {}).get(answer.request.method.lower())
    if operation is None:
        assert answer.status_code in (404, 405), (answer.request.url, answer.status_code)
        schema: dict[str, Any] = DOC["components"]["schemas"]["Error"]
        _validate(schema, answer.json())
        return answer
    responses = operation["responses"]
    status = str(answer.status_code)
    if status not in responses and answer.status_code in (404, 405):
        # The router's answer to a path the template matches but a route does not.
        _validate(DOC["components"]["schemas"]["Error"], answer.json())
        return answer
    assert status in responses, f"{answer.request.method} {template}: {status} is undocumented"
    media = answer.headers["content-type"].partition(";")[0].strip()
    content = responses[status]["content"]
    assert media in content, f"{answer.request.method} {template} {status}: {media}"
    if media == "application/json":
        _validate(content[media]["schema"], answer.json())
    return answer


def _validate(schema: dict[str, Any], value: object) -> None:
    import jsonschema

    jsonschema.Draft202012Validator({**schema, "components": DOC["components"]}).validate(value)
