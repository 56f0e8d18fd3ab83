"""Support: what every layer leans on and that knows no game: errors, argument checks, optional extras, waits.

* :mod:`.errors`: :class:`~crossenvs.support.errors.CrossenvsError` and its subclasses, one per kind of mistake.
* :mod:`.checks` and :mod:`.actions`: argument checks at the door (seeds, counts, batch sizes, memory; action ids).
* :mod:`.command_args`: checks of command-line flags and output paths.
* :mod:`.extras`: an optional dependency missing, said as the extra to install.
* :mod:`.waits`: a line said before a wait a user would otherwise sit through in silence (compiles, loads).
* :mod:`.version`: the package's version.

The lowest layer: it imports nothing else of the package.
"""
