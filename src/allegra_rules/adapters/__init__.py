"""Adapters to reinforcement-learning and game-theory frameworks (optional extras).

Nothing here is imported by ``import allegra_rules``. Install an extra and import the
adapter module explicitly:

- ``pip install "allegra-rules[pettingzoo]"``, then
  [`allegra_rules.adapters.pettingzoo`][allegra_rules.adapters.pettingzoo].
- ``pip install "allegra-rules[gymnasium]"``, then ``allegra_rules.adapters.gymnasium``
  (one learning seat against bots).
- ``pip install "allegra-rules[openspiel]"``, then
  [`allegra_rules.adapters.openspiel`][allegra_rules.adapters.openspiel].

[`allegra_rules.adapters.features`][allegra_rules.adapters.features] (the shared observation vectors
and score bounds) needs only the core library.
"""
