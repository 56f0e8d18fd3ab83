"""The ``crossenvs`` command line: list games, run arenas, play an agent, plot ratings, make GIFs.

crossenvs list
crossenvs eval crisscross --option size=6 --players random greedy mcts:100 --games 20 --csv out.csv
crossenvs play charing_cross --opponent mcts:400
crossenvs rating-plot runs/crisscross-20261121-113000 --out ratings.png
crossenvs gif crisscross --option size=6 --players mcts:100 random --out game.gif
crossenvs serve --port 8000
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from . import checkpoints as ck
from .command_args import check_int_range, check_output_file
from .core.checks import MAX_SEED, check_seed
from .core.errors import CheckpointError, CrossenvsError, InvalidOptionError, UsageError
from .core.game import Game
from .core.options import parse_options
from .core.registry import game_class, game_spec, list_games, make_game
from .players import Player, player_specs


# ----------------------------------------------------------------------------- commands
def cmd_list(args: argparse.Namespace, out: TextIO) -> None:
    for name in list_games():
        spec = game_spec(name)
        out.write(f"{name:<14} {spec.gym_id}\n    {spec.summary}\n")
        out.write(options_text(name, indent="    "))


def options_text(name: str, indent: str = "  ") -> str:
    """A game's options from its schema, one line each: ``size=8  an integer from 3 to 19: the board...``."""
    schema = game_class(name).OPTION_SCHEMA
    if not len(schema):
        return f"{indent}options: none\n"
    lines = [f"{indent}options:"]
    lines += [f"{indent}  {o.name}={o.default!r}  ({o.values_text()}) {o.help}" for o in schema]
    return "\n".join(lines) + "\n"


class _GameCommandParser(argparse.ArgumentParser):
    """A subcommand's parser whose help ends with every game's options (read from the schemas only
    when help is shown: it loads each game's module)."""

    lists_game_options = False

    def format_help(self) -> str:
        text = super().format_help()
        if self.lists_game_options:
            text += "\ngame options (--option KEY=VALUE):\n"
            text += "".join(f"  {name}\n{options_text(name, indent='    ')}" for name in list_games())
        return text


def cmd_eval(args: argparse.Namespace, out: TextIO) -> None:
    from .eval.arena import ratings, round_robin, write_results
    from .players import make_player

    game = make_game(args.game, **parse_options(args.option))
    players = [make_player(spec, game=game) for spec in args.players]
    seen: dict[str, int] = {}
    for player in players:  # two checkpoints called step_1000.zip, or random twice: number them
        seen[player.name] = seen.get(player.name, 0) + 1
        if seen[player.name] > 1:
            player.name = f"{player.name}#{seen[player.name]}"
    ladder = None if args.ladder is None else chosen_ladder(game, args.ladder)  # a bad file stops it before any game
    if ladder is not None and not {rung.spec for rung in ladder.rungs} & set(args.players):
        raise InvalidOptionError(
            f"--ladder: none of the players is a rung of the {ladder.game} ladder; add one of "
            f"{', '.join(rung.spec for rung in ladder.rungs)} to --players"
        )
    records = round_robin(game, players, args.games, seed=args.seed)
    table = ratings(records, [p.name for p in players], seed=args.seed)
    if ladder is not None:
        table = anchor_to_ladder(ladder, args, players, table, out)
    print_table(table, out)
    for path in filter(None, (args.csv, args.json)):
        write_results(path, table, records)
        out.write(f"wrote {path}\n")


def anchor_to_ladder(ladder, args: argparse.Namespace, players: list[Player], table: list, out: TextIO) -> list:
    """The arena's ratings moved onto the ladder's scale: shifted so that the players that are rungs of the
    ladder (named by the same spec; cmd_eval has checked that there is one) sit, on average, at their ladder ratings."""
    from dataclasses import replace

    fixed = {rung.spec: rung.rating for rung in ladder.rungs}
    by_name = {rating.name: rating.rating for rating in table}
    gaps = [fixed[spec] - by_name[player.name] for spec, player in zip(args.players, players) if spec in fixed]
    shift = sum(gaps) / len(gaps)
    out.write(f"(ratings on the {ladder.game} ladder's scale, random = 0, through {len(gaps)} of its rungs)\n")
    return [replace(r, rating=r.rating + shift, low=r.low + shift, high=r.high + shift) for r in table]


def print_table(table, out: TextIO) -> None:
    """The ratings; a line under the table says how a one-sided bound (a clean sweep) was worked out."""
    from .eval.arena import interval_text

    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # the eval extra is not installed: plain text
        out.write(f"{'player':<24} {'rating':>7} {'95% interval':>15} {'games':>6} {'score':>7}\n")
        for r in table:
            interval = interval_text(r)
            out.write(f"{r.name:<24} {r.rating:>7.0f} {interval:>15} {r.games:>6} {r.score:>7.1%}\n")
        out.write(_sweep_note(table))
        return

    view = Table(title="Round robin (Bradley-Terry ratings, 95% intervals)")
    for column in ("player", "rating", "95% interval", "games", "score"):
        view.add_column(column, justify="left" if column == "player" else "right")
    for r in table:
        view.add_row(r.name, f"{r.rating:.0f}", interval_text(r), str(r.games), f"{r.score:.1%}")
    Console(file=out, width=100).print(view)
    out.write(_sweep_note(table))


def _sweep_note(table) -> str:
    """Intervals are bootstrap ones; a player who won or lost every game gets an exact one-sided bound."""
    if not any(math.isinf(r.low) or math.isinf(r.high) for r in table):
        return ""
    return (
        "(>= / <=: the player won or lost every game, so only one side is bounded: the exact binomial 95% bound "
        "on its score, as an Elo gap to its opponents' mean)\n"
    )


def cmd_play(args: argparse.Namespace, out: TextIO, source: TextIO) -> int:
    """A human against an opponent in the terminal (:mod:`crossenvs.play`); 130 after Ctrl-C."""
    from .play import play
    from .players import make_player

    game = make_game(args.game, **parse_options(args.option))
    opponent = make_player(args.opponent, seed=args.seed, game=game)
    return play(game, opponent, 0 if args.seat in ("first", "0") else 1, out, source)


def cmd_serve(args: argparse.Namespace, out: TextIO) -> None:
    """Play in the browser (:mod:`crossenvs.web`): serve the page until Ctrl-C."""
    from .web import serve

    serve(
        args.host,
        args.port,
        args.checkpoints,
        args.max_simulations,
        out,
        args.docs_url,
        trust_pickles=args.trust_pickles,
    )


def run_checkpoints(run_dir: Path, simulations: int) -> tuple[Game, str, list[tuple[float, Player]]]:
    """A training run's checkpoints as players, each with its place on the x axis.

    A PPO run (``training/selfplay.py``) has ``step_<n>.zip`` with ``step_<n>.json``: x is the
    training step. An AlphaZero run (``training/alphazero.py``) has ``seconds_<n>.pt`` snapshots:
    x is wall-clock minutes, and each plays with ``simulations`` per move.
    """
    from .players import ModelPlayer

    folder = Path(run_dir, ck.CHECKPOINTS)
    snapshots = sorted(folder.glob(ck.AZ_SNAPSHOT_GLOB))
    if snapshots:
        from .az.player import AlphaZeroPlayer

        players = [AlphaZeroPlayer(path, simulations) for path in snapshots]
        document = players[0].document
        game = make_game(document["game"], **document["options"])
        timed = []
        for path, player in zip(snapshots, players):
            player.name = f"{path.stem}"
            timed.append((ck.az_snapshot_seconds(path) / 60.0, player))
        return game, "wall-clock minutes of training", timed
    checkpoints = []
    for meta_path in folder.glob(ck.SB3_META_GLOB):
        meta = ck.read_sb3_metadata(meta_path)
        checkpoints.append((int(meta["step"]), meta, meta_path.with_suffix(".zip")))
    if not checkpoints:
        raise CheckpointError(
            f"no checkpoints in {folder} (step_<n>.zip from training/selfplay.py or seconds_<n>.pt from "
            "training/alphazero.py): the run has not written one yet"
        )
    checkpoints.sort(key=lambda item: item[0])
    try:
        game = make_game(checkpoints[0][1]["game"], **checkpoints[0][1]["options"])
    except (KeyError, TypeError) as exc:
        raise CheckpointError(
            f"checkpoint metadata of step {checkpoints[0][0]} in {folder} is corrupt: {exc}"
        ) from None
    players = [
        (float(step), ModelPlayer(ck.load_sb3(path, game), name=f"step_{step}")) for step, _, path in checkpoints
    ]
    return game, "training step", players


#: ``--ladder`` without a file (eval, rating-plot): the ladder shipped for the game
SHIPPED_LADDER = "shipped"


def chosen_ladder(game: Game, flag: str):
    """The ladder a ``--ladder [FILE]`` flag names: the game's shipped one, or the file."""
    from .eval.ladder import load_ladder

    return load_ladder(game, None if flag == SHIPPED_LADDER else flag)


def cmd_rating_plot(args: argparse.Namespace, out: TextIO) -> None:
    """Rate every checkpoint of a run against baselines; plot rating against training step or time."""
    from .eval.arena import bradley_terry, round_robin
    from .players import make_player

    game, x_label, checkpoints = run_checkpoints(args.run_dir, args.simulations)
    if args.ladder is not None:
        return ladder_plot(args, out, game, x_label, checkpoints)
    specs = args.baselines or ["random", "greedy", f"mcts:{args.mcts}"]
    baselines = [make_player(spec, game=game) for spec in specs]
    records = round_robin(game, baselines, args.games, seed=args.seed)  # the baselines meet once
    for _, player in checkpoints:
        for index, baseline in enumerate(baselines):
            records += round_robin(game, [player, baseline], args.games, seed=(args.seed + 1 + index) % (MAX_SEED + 1))
    names = [player.name for _, player in checkpoints] + [b.name for b in baselines]
    rated = bradley_terry(records, names)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [x for x, _ in checkpoints]
    figure, axis = plt.subplots(figsize=(6, 4))
    axis.plot(xs, rated[: len(xs)], marker="o", label="checkpoints")
    for offset, baseline in enumerate(baselines):
        axis.axhline(rated[len(xs) + offset], linestyle="--", color=f"C{offset + 1}", label=baseline.name)
    axis.set_xlabel(x_label)
    axis.set_ylabel("rating (Bradley-Terry, Elo scale)")
    axis.set_title(f"{game.name} {game.options or ''}: rating against {x_label.split(' of ')[0]}")
    axis.legend()
    figure.tight_layout()
    figure.savefig(args.out, dpi=100)
    for name, rating in zip(names, rated):
        out.write(f"{name:<24} {rating:7.0f}\n")
    out.write(f"wrote {args.out}\n")


def ladder_plot(
    args: argparse.Namespace, out: TextIO, game: Game, x_label: str, checkpoints: list[tuple[float, Player]]
) -> None:
    """rating-plot --ladder: each checkpoint rated on the game's fixed-anchor ladder (``--games`` games at most)."""
    from .eval.ladder import rate

    ladder = chosen_ladder(game, args.ladder)
    fits = []
    for _, player in checkpoints:
        fits.append(rate(game, player, ladder, max_games=args.games, batch=min(10, args.games), seed=args.seed).fit)
        out.write(f"{player.name:<24} {fits[-1].rating:7.0f}  (95% {fits[-1].interval_text()})\n")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [x for x, _ in checkpoints]
    figure, axis = plt.subplots(figsize=(6, 4))
    lows = [fit.rating - fit.low if math.isfinite(fit.low) else 0.0 for fit in fits]
    highs = [fit.high - fit.rating if math.isfinite(fit.high) else 0.0 for fit in fits]
    axis.errorbar(xs, [fit.rating for fit in fits], yerr=[lows, highs], marker="o", capsize=3, label="checkpoints")
    top = max(fit.rating for fit in fits)
    for offset, rung in enumerate(r for r in ladder.rungs if r.rating <= top + 200):
        axis.axhline(rung.rating, linestyle=":", color=f"C{offset % 9 + 1}", linewidth=0.8, label=rung.spec)
    axis.set_xlabel(x_label)
    axis.set_ylabel("ladder rating (Elo, random = 0)")
    axis.set_title(f"{game.name} {game.options or ''}: on the fixed-anchor ladder")
    axis.legend(fontsize="small", ncol=2)
    figure.tight_layout()
    figure.savefig(args.out, dpi=100)
    out.write(f"wrote {args.out}\n")


def cmd_gif(args: argparse.Namespace, out: TextIO) -> None:
    """One game between two players as an animated GIF of rgb_array frames."""
    from PIL import Image

    from .game_in_progress import play_frames
    from .players import make_player

    game = make_game(args.game, **parse_options(args.option))
    if len(args.players) != 2:
        raise InvalidOptionError("gif needs exactly two players (first seat, second seat)")
    seeds = [args.seed, (args.seed + 1) % (MAX_SEED + 1)]
    players = [make_player(spec, seed=seeds[seat], game=game) for seat, spec in enumerate(args.players)]
    frames = [Image.fromarray(frame) for frame in play_frames(game, players)]
    frames[0].save(args.out, save_all=True, append_images=frames[1:], duration=args.ms, loop=0)
    out.write(f"wrote {args.out} ({len(frames)} frames)\n")


def cmd_check(args: argparse.Namespace, out: TextIO) -> int:
    """The contract suite (:func:`crossenvs.testing.check_game`) on a game of one's own: 0 when it passes, 1 when not."""
    from dataclasses import asdict

    from .testing import check_game

    before = set(list_games())
    import_module(args.module)
    names = [canonical_game(args.game)] if args.game else sorted(set(list_games()) - before)
    if not names:
        raise UsageError(
            f"check {args.module}: it registers no new game; name one (crossenvs check {args.module} <game>) "
            "or call crossenvs.register_game in the module"
        )
    options = parse_options(args.option)
    failed = 0
    for name in names:
        out.write(f"checking {name} {options or ''}({args.plies} random plies)...\n")
        try:
            report = check_game(name, plies=args.plies, seed=args.seed, **options)
        except AssertionError as exc:
            failed += 1
            out.write(f"FAILED {name}: {exc}\n")
            continue
        counts = ", ".join(f"{key.replace('_', ' ')} {value}" for key, value in asdict(report).items() if key != "game")
        out.write(f"passed {name}: {counts}\n")
    return 1 if failed else 0


def cmd_solve(args: argparse.Namespace, out: TextIO) -> None:
    """The proven value of a position (the start, or ``--position`` text) and its optimal moves."""
    from .eval.solver import solve

    game = make_game(args.game, **parse_options(args.option))
    state = game.from_text(Path(args.position).read_text()) if args.position else game.initial_state()
    solution = solve(
        game, state, nodes=args.nodes, table_bits=args.table_bits, moves=not args.value_only, deepening=args.deepening
    )
    mover = game.colours[game.current_player(state)]
    verdict = {1: f"{mover} wins", 0: "a draw", -1: f"{mover} loses"}[solution.value]
    out.write(f"{game!r}, {mover} to move: {verdict} with best play\n")
    if not args.value_only:
        optimal = " ".join(game.action_to_str(state, action) for action in solution.optimal)
        out.write(f"optimal moves: {optimal}\n")
    out.write(f"proven in {solution.seconds:.1f} s over {solution.nodes:,} positions\n")


def import_module(name: str) -> None:
    """Import a module by name, or a ``.py`` file by path (its folder joins ``sys.path``)."""
    path = Path(name)
    try:
        if path.suffix == ".py":
            if not path.is_file():
                raise InvalidOptionError(f"--import {name}: no such file")
            sys.path.insert(0, str(path.resolve().parent))
            importlib.import_module(path.stem)
        else:
            importlib.import_module(name)
    except ImportError as exc:
        raise InvalidOptionError(f"--import {name}: {exc}") from None
    except SyntaxError as exc:  # other errors in the user's module keep their traceback, which shows where
        raise InvalidOptionError(f"--import {name}: {exc.msg} ({exc.filename}, line {exc.lineno})") from None


# ----------------------------------------------------------------------------- checks before any work
#: games per pairing at most: the arena plays a pairing's games at once, so memory bounds them
MAX_GAMES = 100_000
#: a GIF stores frame delays in hundredths of a second, in 16 bits
GIF_MS = (10, 655_350)
#: what rating-plot writes (matplotlib's formats that need nothing beyond matplotlib and Pillow)
PLOT_SUFFIXES = (".png", ".pdf", ".svg", ".jpg", ".jpeg", ".webp")


def cmd_ladder(args: argparse.Namespace, out: TextIO) -> None:
    """Rate a ladder's rungs against each other (random pinned at 0) and write the ladder file."""
    from .eval.ladder import build_ladder, default_rungs, default_workers, made_stamp

    game = make_game(args.game, **parse_options(args.option))
    specs = args.rungs or default_rungs(game)
    workers = args.workers or default_workers()
    out.write(f"{game!r}: {len(specs)} rungs, each against its {args.reach} nearest above, "
              f"{args.games_per_pair} games a pair, {workers} processes\n")  # fmt: skip
    command = "crossenvs " + " ".join(sys.argv[1:]) if sys.argv[0].endswith("crossenvs") else ""
    ladder = build_ladder(
        game, specs, args.games_per_pair, reach=args.reach, seed=args.seed, workers=workers,
        command=command or f"crossenvs ladder {args.game} --games-per-pair {args.games_per_pair}",
        made=made_stamp(), progress=lambda line: out.write(f"  {line}\n"),
    )  # fmt: skip
    for rung in ladder.rungs:
        out.write(
            f"{rung.spec:<16} {rung.rating:7.0f}   95%: {rung.low:6.0f} .. {rung.high:<6.0f} {rung.games:6} games\n"
        )
    Path(args.out).write_text(ladder.to_json())
    out.write(f"wrote {args.out}\n")


def cmd_rate(args: argparse.Namespace, out: TextIO) -> None:
    """A player's rating on the game's fixed-anchor ladder, comparable across runs and machines."""
    from .eval.ladder import load_ladder, rate
    from .players import make_player

    game = make_game(args.game, **parse_options(args.option))
    ladder = load_ladder(game, args.ladder)
    player = make_player(args.player, game=game, seed=args.seed)
    player.name = args.player

    def progress(fit, rung: str) -> None:
        out.write(f"  {fit.games:4} games, last against {rung:<14} {fit.rating:6.0f}  (95% {fit.interval_text()})\n")
        out.flush()

    result = rate(game, player, ladder, width=args.width, max_games=args.max_games, batch=args.batch,
                  seed=args.seed, progress=progress)  # fmt: skip
    out.write(result.summary(args.player) + "\n")


def check_args(args: argparse.Namespace) -> None:
    """Refuse out-of-range numbers and outputs that cannot be written before any game is played:
    an arena that fails at its end, writing the results, has lost them."""
    if getattr(args, "seed", None) is not None:
        check_seed(args.seed, "--seed")
    checks = {
        "eval": _check_eval,
        "gif": _check_gif,
        "rating-plot": _check_rating_plot,
        "serve": _check_serve,
        "check": lambda args: check_int_range(args.plies, "--plies", 1, 1_000_000),
        "ladder": _check_ladder,
        "rate": _check_rate,
    }
    if args.command in checks:
        checks[args.command](args)


def _check_eval(args: argparse.Namespace) -> None:
    check_int_range(args.games, "--games", 1, MAX_GAMES)
    if len(args.players) < 2:
        raise UsageError(f"--players: an arena needs at least two players, got only {args.players[0]}")
    flags = [("--csv", args.csv), ("--json", args.json)]
    outputs = [check_output_file(path, flag).resolve() for flag, path in flags if path]
    if len(outputs) == 2 and outputs[0] == outputs[1]:
        raise UsageError(f"--csv and --json both name {args.csv}; give them different files")


def _check_ladder(args: argparse.Namespace) -> None:
    check_int_range(args.games_per_pair, "--games-per-pair", 2, MAX_GAMES)
    check_int_range(args.reach, "--reach", 1, 100)
    if args.workers is not None:
        check_int_range(args.workers, "--workers", 1, 1024)
    check_output_file(args.out, "--out", (".json",))


def _check_rate(args: argparse.Namespace) -> None:
    check_int_range(args.max_games, "--max-games", 2, MAX_GAMES)
    check_int_range(args.batch, "--batch", 2, MAX_GAMES)
    if not math.isfinite(args.width) or args.width <= 0:
        raise UsageError(f"--width {args.width}: give the widest 95% interval to stop at, in Elo points, above 0")


def _check_gif(args: argparse.Namespace) -> None:
    check_int_range(args.ms, "--ms (milliseconds per frame; GIFs keep hundredths of a second)", *GIF_MS)
    check_output_file(args.out, "--out", (".gif",))


def _check_rating_plot(args: argparse.Namespace) -> None:
    check_int_range(args.games, "--games", 1, MAX_GAMES)
    check_int_range(args.mcts, "--mcts", 1)
    check_int_range(args.simulations, "--simulations", 0)
    if importlib.util.find_spec("matplotlib") is None:
        raise UsageError('rating-plot needs matplotlib (the eval extra): pip install "crossenvs[eval]"')
    check_output_file(args.out, "--out", PLOT_SUFFIXES)
    run = Path(args.run_dir)
    if not run.is_dir():
        raise UsageError(f"rating-plot {run}: no such folder; give the folder of a run of training/*.py")
    if not (run / ck.CHECKPOINTS).is_dir():
        raise UsageError(f"rating-plot {run}: it has no {ck.CHECKPOINTS}/ folder, so it is not a training run's folder")


def _check_serve(args: argparse.Namespace) -> None:
    check_int_range(args.port, "--port", 1, 65535)
    check_int_range(args.max_simulations, "--max-simulations", 1)
    missing = [name for name in ("starlette", "uvicorn") if importlib.util.find_spec(name) is None]
    if missing:
        raise UsageError(f'serve needs {" and ".join(missing)} (the web extra): pip install "crossenvs[web]"')
    for folder in args.checkpoints:
        if not Path(folder).is_dir():
            raise UsageError(f"--checkpoints {folder}: no such folder; give a folder that holds checkpoints")


# ----------------------------------------------------------------------------- entry point
#: one example per command, shown at the end of its help
EXAMPLES = {
    "list": "crossenvs list",
    "eval": "crossenvs eval crisscross --option size=6 --players random greedy mcts:100 --games 20 --csv out.csv",
    "play": "crossenvs play charing_cross --opponent pretrained --seat second",
    "gif": "crossenvs gif crisscross --option size=6 --players mcts:100 random --out game.gif",
    "rating-plot": "crossenvs rating-plot runs/crisscross-20261121-113000 --out ratings.png",
    "serve": "crossenvs serve --port 8000 --checkpoints runs",
    "check": "crossenvs check examples/tictactoe.py tictactoe",
    "solve": "crossenvs solve crisscross --option size=4",
    "ladder": "crossenvs ladder crisscross --option size=6 --games-per-pair 200 --out crisscross_size6.json",
    "rate": "crossenvs rate pretrained --game crisscross --option size=6",
}


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Every flag's default in its help, and examples kept as written."""


def canonical_game(text: str) -> str:
    """A registered game's name from what a person typed: any case, ``-`` or spaces for ``_``.

    ``Crisscross``, ``charing-cross`` and ``Charing Cross`` all name a game; anything else is an
    :class:`UnknownGameError` that lists the games and suggests the nearest.
    """
    name = text.strip().lower().replace("-", "_").replace(" ", "_")
    return game_spec(name).name


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crossenvs",
        description="crossenvs: games, arenas, play, plots.",
        epilog="examples:\n" + "\n".join(f"  {line}" for line in EXAMPLES.values()),
        formatter_class=_HelpFormatter,
    )
    parser.add_argument(
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="MODULE",
        help="a module name or .py file to import first (it may register games of its own)",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_GameCommandParser)

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        return commands.add_parser(
            name,
            help=help_text,
            description=help_text,
            epilog=f"example:\n  {EXAMPLES[name]}",
            formatter_class=_HelpFormatter,
        )

    command("list", "the games, their gymnasium ids and options")

    def game_command(name: str, help_text: str) -> argparse.ArgumentParser:
        sub = command(name, help_text)
        sub.lists_game_options = True
        sub.add_argument("game", metavar="GAME", help=f"one of {', '.join(list_games())} (any case)")
        sub.add_argument(
            "--option", action="append", default=[], metavar="KEY=VALUE", help="a game option (repeatable; see below)"
        )
        sub.add_argument("--seed", type=int, default=0, help="seed of the players' random choices")
        return sub

    arena = game_command("eval", "round robin between players, both seats, with ratings")
    arena.add_argument("--players", nargs="+", required=True, metavar="SPEC", help=f"two or more of: {player_specs()}")
    arena.add_argument("--games", type=int, default=20, help="games per pair (seats alternate)")
    arena.add_argument("--csv", help="write the ratings table as CSV (default: not written)")
    arena.add_argument("--json", help="write ratings and games as JSON (default: not written)")
    arena.add_argument(
        "--ladder",
        nargs="?",
        const=SHIPPED_LADDER,
        metavar="FILE",
        help="put the ratings on a fixed-anchor ladder's scale (the game's shipped one, or FILE) through the "
        "players that are its rungs, e.g. random or mcts:500",
    )
    play = game_command("play", "play against an agent in the terminal")
    play.add_argument("--opponent", default="random", metavar="SPEC", help=f"one of: {player_specs()}")
    play.add_argument("--seat", default="first", choices=["first", "second", "0", "1"], help="the seat you play")
    gif = game_command("gif", "an animated GIF of one game")
    gif.add_argument("--players", nargs=2, default=["random", "random"], metavar="SPEC", help="first seat, second seat")
    gif.add_argument("--out", default="game.gif", help="the GIF to write")
    gif.add_argument("--ms", type=int, default=400, help="milliseconds per frame")
    plot = command("rating-plot", "rating of a run's checkpoints against training step or time")
    plot.add_argument("run_dir", help="the folder of a training run (it holds checkpoints/)")
    plot.add_argument("--out", default="ratings.png", help="the plot to write (.png, .pdf, .svg, ...)")
    plot.add_argument("--games", type=int, default=20, help="games per pairing (seats alternate)")
    plot.add_argument("--mcts", type=int, default=100, help="simulations of the MCTS baseline")
    plot.add_argument(
        "--baselines", nargs="+", help="player specs to rate against (default: random greedy mcts:<--mcts>)"
    )
    plot.add_argument("--simulations", type=int, default=64, help="search of AlphaZero checkpoints")
    plot.add_argument(
        "--ladder",
        nargs="?",
        const=SHIPPED_LADDER,
        metavar="FILE",
        help="rate each checkpoint on a fixed-anchor ladder instead (the game's shipped one, or FILE), "
        "--games games at most: the same scale in every run",
    )
    plot.add_argument("--seed", type=int, default=0, help="seed of the games")
    solver = game_command("solve", "the game-theoretic value of a position and its optimal moves (exact)")
    solver.add_argument("--position", metavar="FILE", help="position text to solve (default: the start)")
    solver.add_argument("--nodes", type=int, default=50_000_000, help="positions to visit at most before giving up")
    solver.add_argument("--table-bits", type=int, default=22, help="log2 of the transposition table's slots")
    solver.add_argument(
        "--deepening",
        type=int,
        default=8,
        help="plies of bounded searches before the full one: quick proofs of near wins (0: straight to the full search)",
    )
    solver.add_argument(
        "--value-only", action="store_true", help="prove the value only, not every move's (much faster to a win)"
    )
    ladder = game_command("ladder", "rate a fixed-anchor ladder's rungs (random at 0) and write its file")
    ladder.add_argument(
        "--rungs",
        nargs="+",
        metavar="SPEC",
        help="the reference players, weakest first "
        "(default: random greedy mcts:8 ... mcts:2000, and pretrained:0 ... :256 where an agent exists)",
    )
    ladder.add_argument("--games-per-pair", type=int, default=200, help="games between each pair of neighbours")
    ladder.add_argument("--reach", type=int, default=2, help="each rung meets this many rungs above it")
    ladder.add_argument("--workers", type=int, default=None, help="processes playing pairs (default: the cores)")
    ladder.add_argument("--out", required=True, help="the ladder file to write (.json)")
    rater = command("rate", "a player's rating on the game's fixed-anchor ladder (comparable across runs)")
    rater.lists_game_options = True
    rater.add_argument("player", metavar="SPEC", help=f"the player to rate: {player_specs()}")
    rater.add_argument("--game", required=True, help=f"one of {', '.join(list_games())} (any case)")
    rater.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a game option (repeatable; see below)"
    )
    rater.add_argument("--ladder", metavar="FILE", help="a ladder file (default: the one shipped for the game)")
    rater.add_argument("--width", type=float, default=100.0, help="stop once the 95%% interval is this narrow (Elo)")
    rater.add_argument("--max-games", type=int, default=200, help="stop after this many games at most")
    rater.add_argument("--batch", type=int, default=10, help="games against one rung before the estimate is refit")
    rater.add_argument("--seed", type=int, default=0, help="seed of the games")
    check = command("check", "run the contract suite on a game of your own and print its report")
    check.add_argument("module", help="a module name or .py file that registers the game")
    check.add_argument("game", nargs="?", help="the game to check (default: every game the module registers)")
    check.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option (repeatable)")
    check.add_argument("--plies", type=int, default=600, help="random plies to check positions of")
    check.add_argument("--seed", type=int, default=0, help="seed of the random plies")
    serve = command("serve", "play in the browser: a local web app (the web extra)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (the default: this machine only)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
    serve.add_argument(
        "--checkpoints",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder the page may load checkpoints from, besides the packaged agents (repeatable)",
    )
    serve.add_argument(
        "--max-simulations",
        type=int,
        default=1000,
        metavar="N",
        help="the most simulations per move a page may ask of an opponent",
    )
    serve.add_argument(
        "--docs-url",
        default=None,
        metavar="URL",
        help="where the page links each game's rules, {name} standing for the game "
        "(default https://crossenvs.readthedocs.io/en/latest/{name}.html)",
    )
    serve.add_argument(
        "--trust-pickles",
        action="store_true",
        help="let pages name pickle:<file>.zip from the --checkpoints folders: unpickling runs any code the file "
        "holds, so only for folders whose every file you trust (docs/security.md)",
    )
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, source: TextIO | None = None) -> int:
    out = out or sys.stdout
    argv = list(sys.argv[1:] if argv is None else argv)
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--import", dest="imports", action="append", default=[])
    known, rest = early.parse_known_args(argv)  # --import may stand anywhere; the rest is the command
    try:
        for module in known.imports:  # before the parser lists the games
            import_module(module)
    except CrossenvsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args = build_parser().parse_args(rest)
    try:
        if getattr(args, "game", None) is not None and args.command != "check":  # check's game is imported first
            args.game = canonical_game(args.game)
        check_args(args)
        if args.command == "list":
            cmd_list(args, out)
        elif args.command == "eval":
            cmd_eval(args, out)
        elif args.command == "play":
            return cmd_play(args, out, source or sys.stdin)
        elif args.command == "rating-plot":
            cmd_rating_plot(args, out)
        elif args.command == "gif":
            cmd_gif(args, out)
        elif args.command == "serve":
            cmd_serve(args, out)
        elif args.command == "solve":
            cmd_solve(args, out)
        elif args.command == "check":
            return cmd_check(args, out)
        elif args.command == "ladder":
            cmd_ladder(args, out)
        elif args.command == "rate":
            cmd_rate(args, out)
    except CrossenvsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
