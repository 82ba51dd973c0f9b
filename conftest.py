"""Root pytest configuration: skip doctest collection of optional parts whose extras are missing."""

from importlib.util import find_spec

_EXTRAS = {
    "src/allegra_rules/adapters/pettingzoo.py": ("pettingzoo", "gymnasium", "numpy"),
    "src/allegra_rules/adapters/gymnasium.py": ("gymnasium", "numpy"),
    "src/allegra_rules/adapters/openspiel.py": ("pyspiel", "numpy"),
    "src/allegra_rules/server": ("starlette", "uvicorn"),
    "src/allegra_rules/jax": ("jax",),
    "src/allegra_rules/train": ("jax", "flax", "optax"),
}

collect_ignore = [
    path
    for path, modules in _EXTRAS.items()
    if any(find_spec(module) is None for module in modules)
]
