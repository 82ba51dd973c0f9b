"""Adapters to reinforcement-learning and game-theory frameworks (optional extras).

Nothing here is imported by ``import allegra_rules``. Install an extra and import the
adapter module explicitly (in a clone of the repository; without one, name it
``"allegra-rules[pettingzoo] @ git+https://github.com/allegra-rules/allegra-rules"``):

- ``pip install ".[pettingzoo]"``, then
  [`allegra_rules.adapters.pettingzoo`][allegra_rules.adapters.pettingzoo].
- ``pip install ".[gymnasium]"``, then ``allegra_rules.adapters.gymnasium``
  (one learning seat against bots).
- ``pip install ".[openspiel]"``, then
  [`allegra_rules.adapters.openspiel`][allegra_rules.adapters.openspiel].

[`allegra_rules.adapters.features`][allegra_rules.adapters.features] (the shared observation vectors
and score bounds) needs only the core library.
"""
