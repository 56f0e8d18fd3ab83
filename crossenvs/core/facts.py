"""What a game tells people about itself, declared beside its rules: :class:`GameFacts`.

The web page, the docs and listings show a game by its name as people write it and a paragraph
of its rules. Those facts belong to the game, as its options do (:mod:`crossenvs.core.options`,
where each option carries its own label and whether forms fold it away), so a game declares
them as a class attribute next to its ``OPTION_SCHEMA``:

>>> from crossenvs.core.facts import GameFacts
>>> facts = GameFacts(display_name="Neo-Crossings")
>>> facts.completed("neo_crossings", "move lines of stones").rules_summary
'Move lines of stones.'

A game that declares nothing (a user's game registered with ``register_game``) still reads
well: the registry completes every blank fact from the registration
(:attr:`crossenvs.GameSpec.facts`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class GameFacts:
    """A game's name as people write it and a paragraph of its rules; blank ones come from its registration."""

    #: the name people write, e.g. ``"Neo-Crossings"``; blank: the registry name, spaced and capitalised
    display_name: str = ""
    #: a paragraph of rules in our own words for someone about to play; blank: the one-line summary as a sentence
    rules_summary: str = ""

    def completed(self, name: str, summary: str) -> GameFacts:
        """These facts with each blank one derived from the game's registry ``name`` and one-line ``summary``."""
        return replace(
            self,
            display_name=self.display_name or name.replace("_", " ").capitalize(),
            rules_summary=self.rules_summary or summary[:1].upper() + summary[1:] + ".",
        )
