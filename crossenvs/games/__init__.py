"""One module per game: the rules only, written against :mod:`crossenvs.core`."""
