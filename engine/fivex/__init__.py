"""5X (David Brain): the ``5x`` ruleset.

``data`` holds every rules datum (marked rulebook or our reading), ``rules`` the state
and the round steps, ``orders`` the order language, ``view`` what people see, and
``game`` the ``FiveX`` ruleset that ties them to ``engine.base.Ruleset``.
"""

from engine.fivex.game import FiveX

__all__ = ["FiveX"]
