"""The end of an AlphaZero run: the final network against ``eval_opponent`` and on the game's ladder.

The match goes through the project's arena (seats alternating, ``eval_simulations`` a move), the
rating through the game's shipped fixed-anchor ladder (:mod:`crossenvs.eval.ladder`), and both
into ``summary.json`` and the run's closing line.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from crossenvs import checkpoints as ck
from crossenvs.az.config import Config, load_config
from crossenvs.az.player import AlphaZeroPlayer
from crossenvs.az.resume import named_checkpoint, read_document
from crossenvs.core.registry import make_game
from crossenvs.eval.arena import match
from crossenvs.eval.ladder import LadderError, check_agent, load_ladder, rate
from crossenvs.players import make_player
from crossenvs.support.errors import CheckpointError
from crossenvs.trainer.folders import check_resume_folder, write_atomically


def final_evaluation(
    config: Config, run_dir: Path, final: Path, counters: dict, device: str, session: dict, precision: str = ""
) -> dict[str, Any]:
    """The final network against ``eval_opponent``, ``summary.json`` and the closing line."""
    game = make_game(config.game, **config.options)
    agent = AlphaZeroPlayer(final, config.eval_simulations, game=game, device=device)
    opponent = make_player(config.eval_opponent, game=game)
    evaluation = match(game, agent, opponent, config.eval_games, seed=(config.seed + 1) % 2**63)
    ladder = ladder_rating(game, agent, config)
    summary = {
        "game": config.game,
        "options": config.options,
        "positions": counters["positions"],
        "updates": counters["updates"],
        **session,
        "device": device,
        "precision": precision,
        "checkpoint": str(final),
        "opponent": opponent.name,
        **evaluation,
        **ladder,
    }
    write_atomically(run_dir / "summary.json", json.dumps(summary, indent=2))
    speed = f", {session['positions_per_second']:,.0f} positions/s" if "positions_per_second" in session else ""
    print(
        f"{config.game}{config.options}: {counters['positions']:,} positions ({counters['updates']:,} updates)"
        f"{speed} on {device} ({precision or 'evaluation only'}); vs {opponent.name} "
        f"{evaluation['score']:.1%} score ({evaluation['win_rate']:.1%} wins) over {evaluation['games']} games, both "
        f"seats, searching {config.eval_simulations} simulations; {ladder.get('ladder_text', 'no ladder rating')}; "
        f"checkpoint {shown_path(final)}"
    )
    print("\n".join(next_commands(config.game, config.options, final)))
    return summary


def shown_path(path: Path) -> str:
    """``path`` as a user would type it here: relative to the working folder when inside it, else absolute."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(Path(path).resolve())


def next_commands(game: str, options: dict[str, Any], checkpoint: Path) -> list[str]:
    """What to do with a finished run's agent: rate it where the game has a ladder (on Connect Four, measure its
    mistakes against perfect play), match it, play it (its ``az:`` spec). Only commands that work are named.

    The match names two rungs that every shipped ladder has (MCTS-500 and random): where the game has a ladder,
    ``eval`` holds them at their ladder ratings and rates the agent on its scale; elsewhere three players still
    give every one a rating and an interval, which a match against one opponent would not."""
    from crossenvs.core.registry import make_game
    from crossenvs.eval.ladder.scale import shipped_ladder

    spec = f"az:{shown_path(checkpoint)}"
    flags = "".join(f" --option {key}={value}" for key, value in options.items())
    commands = []
    if shipped_ladder(make_game(game, **options)) is not None:
        commands.append((f"crossenvs rate {spec} --game {game}{flags}", "its rating on the ladder"))
    if game == "connect_four" and not options:
        commands.append((f"crossenvs mistakes {spec} {spec}:0", "its mistakes against perfect play, searching and not"))
    commands += [
        (f"crossenvs eval {game}{flags} --players {spec} mcts:500 random --games 20", "against MCTS, rated"),
        (f"crossenvs play {game}{flags} --opponent {spec}", "play it in the terminal"),
    ]
    width = max(len(command) for command, _ in commands)
    lines = ["next:"] + [f"  {command.ljust(width)}   # {why}" for command, why in commands]
    return lines


def ladder_rating(game, agent: AlphaZeroPlayer, config: Config) -> dict[str, Any]:
    """The final agent on the game's shipped fixed-anchor ladder (``eval_ladder_games`` games at most), a rating
    comparable across runs; nothing when the config asks for no games or no ladder is shipped for this game."""
    if config.eval_ladder_games < 2:
        return {}
    try:
        ladder = load_ladder(game)
        check_agent(ladder, game)
    except LadderError as exc:
        return {"ladder_text": f"no ladder rating ({exc})"}
    result = rate(game, agent, ladder, max_games=config.eval_ladder_games, seed=config.seed)  # rate's procedure
    fit = result.fit
    return {
        "ladder_rating": round(fit.rating, 1),
        "ladder_low": round(fit.low, 1) if math.isfinite(fit.low) else None,
        "ladder_high": round(fit.high, 1) if math.isfinite(fit.high) else None,
        "ladder_games": fit.games,
        # a bound (">= 1817") where the agent won every game: a point there would be made up
        "ladder_text": f"ladder rating {fit.rating_text()} (95% {fit.interval_text()}, {fit.games} games)",
    }


def evaluate_only(args: argparse.Namespace, device: str) -> dict[str, Any]:
    """``--resume RUN --evaluate-only``: the final evaluation again, of final.pt (else latest.pt, or the
    ``--from-checkpoint``), for a run killed during its final match; nothing is trained."""
    run_dir = check_resume_folder(args.resume)
    config = load_config(run_dir / "config.yaml", {"max_minutes": args.max_minutes})
    folder = run_dir / ck.CHECKPOINTS
    if args.from_checkpoint:
        chosen = named_checkpoint(args.from_checkpoint, folder)
    else:
        chosen = next((folder / name for name in (ck.AZ_FINAL, ck.AZ_LATEST) if (folder / name).exists()), None)
        if chosen is None:
            raise CheckpointError(f"--evaluate-only: {folder} holds neither final.pt nor latest.pt to evaluate")
    counters = read_document(chosen)["counters"]
    print(f"evaluating {chosen} again (no training)")
    return final_evaluation(config, run_dir, chosen, counters, device, {})
