"""The ``gridsim`` command: ``bench``, ``eval``, ``render``, ``list``, ``check``, ``demos`` and ``play``."""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from gridsim.errors import first_line
from gridsim.tools.policies import TRUST_PICKLE_ENV

if TYPE_CHECKING:
    from gridsim.engine.family import Family
    from gridsim.tools.benchmark import BenchTarget


def level_argument(text: str) -> str | Path:
    """A ``--level`` or id argument: a registered id, else a file that exists (``./mine.txt``) as a Path, else the name.

    See :func:`gridsim.tools.env_names.command_line_env`.
    """
    import gridsim  # noqa: F401 - registers the ids
    from gridsim.tools.env_names import command_line_env

    return command_line_env(text)


def _positive(value, flag: str) -> None:
    """Refuse a count below 1 given to ``flag`` (argparse has already made it an int)."""
    from gridsim.errors import InvalidArgumentError

    if value is not None and value < 1:
        raise InvalidArgumentError(f"{flag} must be a positive integer, got {value}")


def _check_obs_types(obs_types: list[str] | None, family) -> None:
    """Refuse ``gridsim bench --obs`` types the family does not have, with the closest ones."""
    from gridsim.errors import InvalidArgumentError, close_matches, did_you_mean

    if not obs_types:
        return
    decl = family.vector_env.SETTINGS.get("obs_type")
    if decl is None:
        raise InvalidArgumentError(f"--obs: the {family.name} family has one observation type; leave out --obs")
    choices = list(decl.type) if isinstance(decl.type, tuple) else None
    for obs_type in obs_types:
        if choices is not None and obs_type not in choices:
            raise InvalidArgumentError(f"--obs {obs_type!r}: the {family.name} family's observation types are "
                                       f"{', '.join(choices)}{did_you_mean(close_matches(obs_type, choices))}")


def _bench(args) -> int:
    from gridsim.engine.vector import parse_num_threads
    from gridsim.errors import GridSimError, InvalidArgumentError
    from gridsim.tools.benchmark import bench_target, machine_info

    # Resolve the level, the counts and the observation types before the table header, so that a
    # mistake is one line of error, not a traceback or an error after the header.
    try:
        for value, flag in ((args.num_envs, "--num-envs"), (args.steps, "--steps"), (args.repeats, "--repeats")):
            _positive(value, flag)
        if args.seed < 0:
            raise InvalidArgumentError(f"--seed must be non-negative, got {args.seed}")
        # Each count once: "auto" is the count it stands for (2 1 auto on 2 CPUs times 2 and 1).
        threads = list(dict.fromkeys(parse_num_threads(t) for t in args.threads))
        target = bench_target(args.level, args.level_directory)
        _check_obs_types(args.obs, target.family)
    except (GridSimError, ValueError, TypeError) as e:
        print(f"gridsim bench: error: {first_line(e)}", file=sys.stderr)
        return 2
    info = machine_info()
    print(f"gridsim {info['gridsim']} on {info['cpu_model']} ({info['cores']} cores), "
          f"{target.kind} {target.name}, {args.num_envs} envs, kernel threads {' '.join(map(str, threads))}")
    several = len(threads) > 1  # a speed-up column only with thread counts to compare
    header = (f"{'observation':<12} {'threads':>7} {'kernel call':>16} {'step()':>16} {'step/kernel':>12} "
              f"{'ns/env-step':>12}" + (f" {'speed-up':>9}" if several else ""))
    print(header)
    print("-" * len(header))
    obs_types = args.obs or list(target.family.tools.bench_obs_types)
    modes = 1 if len(threads) == 1 else 2  # measure_threads runs once per mode
    bar = _progress_bar(args.progress, len(obs_types) * modes * args.repeats)
    try:
        _bench_rows(args, target, obs_types, threads, info, bar)
    finally:
        if bar is not None:
            bar.close()
    print(bench_legend(args.repeats, args.steps, args.num_envs, threads))
    return 0


def bench_legend(repeats: int, steps: int, num_envs: int, threads: list[int]) -> str:
    """The lines under ``gridsim bench``'s table that say what each column is."""
    lines = [
        f"kernel call, step(): env-steps per second, the best of {repeats} repeats of {steps} steps "
        f"of {num_envs} envs",
        "step/kernel: step()'s rate over the bare kernel call's (the rest of step() is Python: checks, "
        "copies, infos); above 100%: the two differ by less than the timing noise",
        "ns/env-step: nanoseconds of step() per env-step (1e9 / its rate)",
    ]
    if len(threads) > 1:
        lines.append(f"speed-up: step()'s rate over its rate on {threads[0]} thread{'s' if threads[0] > 1 else ''}")
    return "\n".join(lines)


def _progress_bar(enabled: bool, total: int):
    """A tqdm bar of timed repeats on stderr, shown after 2 s; None if disabled or tqdm is not installed."""
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    # leave=False: the bar goes away, so stderr ends as it would without it.
    return tqdm(total=total, desc="gridsim bench", unit="repeat", file=sys.stderr, delay=2.0, leave=False)


def _bench_rows(args, target: BenchTarget, obs_types, threads, info, bar) -> None:
    """Time each observation type and print its rows of the table (``bar``: a tqdm bar or None).

    ``target`` is what :func:`gridsim.tools.benchmark.bench_target` found: each batch is made
    from it, without looking the name up again.
    """
    from gridsim.tools.benchmark import make_actions, measure, measure_threads, obs_type_of

    tick = bar.update if bar is not None else None

    def row(text: str) -> None:
        if bar is not None and sys.stdout.isatty() and sys.stderr.isatty():
            with bar.external_write_mode():  # one terminal: lift the bar off its line, print, redraw it
                print(text)
        else:
            print(text)

    for obs_type in obs_types:
        envs = target.make(args.num_envs, num_threads=threads[0], **({"obs_type": obs_type} if obs_type else {}))
        obs_type = obs_type_of(envs)  # as given, or the family's one observation
        envs.reset(seed=args.seed)
        actions = make_actions(envs.single_action_space, args.steps, envs.num_envs, args.seed)
        if len(threads) == 1:
            raws, steps = [[m] for m in measure(envs, actions, repeats=args.repeats, level=target.name,
                                                 obs_type=obs_type, progress=tick)]
        else:  # thread counts take turns within each repeat, per mode
            raws, steps = (measure_threads(envs, actions, threads, mode=mode, repeats=args.repeats,
                                           level=target.name, obs_type=obs_type, progress=tick)
                           for mode in ("raw", "step"))
        envs.close()
        for raw, step in zip(raws, steps, strict=True):
            speedup = f" {step.env_steps_per_s / steps[0].env_steps_per_s:>8.2f}x" if len(threads) > 1 else ""
            row(f"{obs_type:<12} {step.threads:>7} {raw.env_steps_per_s / 1e6:>10.1f} M/s "
                f"{step.env_steps_per_s / 1e6:>10.1f} M/s {step.env_steps_per_s / raw.env_steps_per_s:>11.0%} "
                f"{step.ns_per_env_step:>12.2f}{speedup}")
            if args.json:
                for m in (raw, step):
                    print(json.dumps({**info, **m.as_dict()}), file=sys.stderr)


def parse_seeds(text: str) -> list[int]:
    """Seeds from ``a:b`` (a to b - 1), ``a:b:step``, a comma list ``1,5,9`` or one int.

    Raises:
        ValueError: text in none of these forms, or a negative seed.
    """
    text = text.strip()
    try:
        if ":" in text:
            parts = [int(p) for p in text.split(":")]
            if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] < 1):
                raise ValueError
            seeds = list(range(*parts))
        else:
            seeds = [int(p) for p in text.split(",")]
    except ValueError:
        raise ValueError(f"--seeds must be a:b, a:b:step (step >= 1) or a comma list of ints, got {text!r}") from None
    if not seeds:
        raise ValueError(f"--seeds {text!r} gives no seeds")
    if min(seeds) < 0:
        raise ValueError(f"--seeds {text!r}: seeds are non-negative")
    return seeds


def _trust_pickle(args) -> bool:
    """Whether policy files may be unpickled: ``--trust-pickle`` given and ``GRIDSIM_TRUST_PICKLE=1`` set.

    Raises:
        InvalidArgumentError: ``--trust-pickle`` without the variable.
    """
    from gridsim.errors import InvalidArgumentError

    if not args.trust_pickle:
        return False
    if os.environ.get(TRUST_PICKLE_ENV) != "1":
        raise InvalidArgumentError(f"--trust-pickle also needs {TRUST_PICKLE_ENV}=1 in the environment: unpickling "
                                   "a policy file can run any code, so both must say that the files are trusted")
    return True


def _json_object(text: str) -> dict:
    """A command line's JSON object (``--env-kwargs``)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError(f"not JSON: {e}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"must be a JSON object ({{\"name\": value}}), got {text}")
    return value


def _eval(args) -> int:
    import time

    from gridsim.engine.files import partial_path
    from gridsim.errors import InvalidArgumentError
    from gridsim.tools.policies import load_policy, sampled_policy
    from gridsim.tools.results import SweepResult

    try:
        seeds = parse_seeds(args.seeds)
        _positive(args.num_envs, "--num-envs")
        _positive(args.max_episode_steps, "--max-episode-steps")
        if args.ray:
            _positive(args.workers, "--workers")
        # Loaded here to report a bad spec at once; Ray workers get the spec and load it themselves.
        trust_pickle = _trust_pickle(args)
        policies = {spec: load_policy(spec, trust_pickle=trust_pickle) for spec in args.policy or ["random"]}
        if args.sample:
            if args.ray:
                raise InvalidArgumentError("--sample runs on this machine: Ray workers load --policy by name, "
                                           "greedy")
            # Draws keyed by each episode's seed and step: the episodes of gridsim render --sample.
            policies = {f"{spec} (sampled)": sampled_policy(p, 0) for spec, p in policies.items()}
        if args.ray:
            policies = {spec: spec for spec in policies}
    except (ValueError, ImportError, AttributeError) as e:
        print(f"gridsim eval: error: {first_line(e)}", file=sys.stderr)
        return 2
    given = dict(args.env_kwargs or {})
    if args.max_episode_steps is not None:
        given["max_episode_steps"] = args.max_episode_steps
    env_kwargs = given or None
    ray_kwargs = {}
    if args.ray:
        ray_kwargs = {"num_workers": args.workers, "address": None if args.ray == "local" else args.ray,
                      "num_envs_per_worker": args.num_envs, "num_threads_per_worker": args.num_threads,
                      "progress": args.progress, "env_kwargs": env_kwargs, "trust_pickle": trust_pickle}
    start = time.perf_counter()
    try:
        run = _eval_run(args, policies, seeds, ray_kwargs, env_kwargs)
    except BaseException:
        # --out is written whole or not at all; what a failed run finished is in <out>.partial.
        if args.out and os.path.exists(partial_path(args.out)):
            print(f"gridsim eval: stopped; the rows finished so far are in {partial_path(args.out)} "
                  f"({args.out} is unchanged)", file=sys.stderr)
        raise
    if isinstance(run, SweepResult):
        table = run
        print(table)
        print(f"{len(table.rows)} evaluations of {len(seeds)} episodes in {time.perf_counter() - start:.3f} s")
        if args.out:
            print(f"wrote {args.out}")
        return 0
    (env,) = args.id
    result = run
    seconds = time.perf_counter() - start
    s = result.summary()
    rows = [("return", s["return"]), ("success rate", s["success"]), ("length", s["length"])]
    rows += [(name, s[name]) for name in result.extras if name in s]
    workers = f" on {args.workers} Ray workers" if args.ray else ""
    print(f"{env}: policy {result.policy}, {result.num_envs} envs{workers}")
    print(f"{'':<16} {'mean':>12} {'± 95% CI':>12} {'std':>12}")
    for name, st in rows:
        print(f"{name:<16} {st['mean']:>12.4f} {st['ci95']:>12.4f} {st['std']:>12.4f}")
    print(f"{'episodes':<16} {len(result):>12}")
    print(f"{'seconds':<16} {seconds:>12.3f}")
    print(f"{'episodes/s':<16} {len(result) / seconds:>12.1f}")
    if args.out:
        print(f"wrote {args.out}")
    return 0


def _eval_run(args, policies: dict, seeds: list[int], ray_kwargs: dict, env_kwargs: dict | None):
    """The evaluation (one env and policy: an EvalResult) or the sweep (a SweepResult) of ``gridsim eval``."""
    import gridsim
    from gridsim.tools.results import SweepResult

    if len(policies) > 1 or len(args.id) > 1:
        if args.ray:
            from gridsim.tools import distributed

            return distributed.sweep(policies, args.id, seeds, csv_path=args.out, **ray_kwargs)
        table = SweepResult()
        with table.csv_when_done(args.out):
            for name, policy in policies.items():
                for env in args.id:
                    table.add(name, env, gridsim.evaluate(policy, env, seeds, num_envs=args.num_envs,
                                                          num_threads=args.num_threads, env_kwargs=env_kwargs,
                                                          progress=args.progress))
        return table
    (env,), (policy,) = args.id, policies.values()
    if args.ray:
        from gridsim.tools import distributed

        return distributed.evaluate(policy, env, seeds, csv_path=args.out, **ray_kwargs)
    result = gridsim.evaluate(policy, env, seeds, num_envs=args.num_envs, num_threads=args.num_threads,
                              env_kwargs=env_kwargs, progress=args.progress)
    if args.out:
        result.to_csv(args.out)
    return result


def _render(args) -> int:
    from gridsim.engine.draw import MAX_CELL_PX
    from gridsim.tools.policies import load_policy, sampled_policy
    from gridsim.tools.record import MEDIA_SUFFIXES, record_episode, write_frames

    def fail(message) -> int:
        text = first_line(message) if isinstance(message, BaseException) else message
        print(f"gridsim render: error: {text}", file=sys.stderr)
        return 2

    suffix = os.path.splitext(args.out)[1].lower()
    if suffix not in MEDIA_SUFFIXES:
        return fail(f"--out {args.out}: the file must end in {', '.join(MEDIA_SUFFIXES)}")
    if args.cell_px is not None and not 1 <= args.cell_px <= MAX_CELL_PX:
        return fail(f"--cell-px must be an integer in 1..{MAX_CELL_PX}, got {args.cell_px}")
    try:
        policy = load_policy(args.policy, trust_pickle=_trust_pickle(args))
        if args.sample:
            policy = sampled_policy(policy, 0)
    except (ValueError, ImportError, AttributeError) as e:
        return fail(e)
    # A PNG needs the episode only up to its frame.
    max_steps = args.max_steps
    if suffix == ".png" and args.frame >= 0:
        max_steps = args.frame if max_steps is None else min(max_steps, args.frame)
    try:
        episode = record_episode(policy, args.id, args.seed, max_steps=max_steps, cell_px=args.cell_px,
                                 env_kwargs=args.env_kwargs, overlay=args.overlay)
        write_frames(args.out, episode.frames, fps=args.fps, frame=args.frame)
    except (ValueError, TypeError, ImportError, LookupError, OSError) as e:  # OSError: e.g. no such folder
        return fail(e)
    end = "terminated" if episode.terminated else "truncated" if episode.truncated else "stopped at --max-steps"
    what = f"frame {args.frame} of " if suffix == ".png" else f"{len(episode.frames)} frames of "
    h, w = episode.frames[0].shape[:2]
    print(f"wrote {args.out}: {what}{args.id} seed {args.seed}, {episode.length} steps ({end}), "
          f"return {episode.rewards.sum():g}, {w}x{h} pixels")
    return 0


def _list(args) -> int:
    import gridsim
    from gridsim.families import FAMILIES

    if args.settings:
        from gridsim.engine.settings import settings_table

        for fam in _listed_families(args.filter):
            # Markdown's code spans (the docstrings' table uses reStructuredText's double backticks).
            table = settings_table(fam.vector_env.SETTINGS, code="`")
            print(f"## {fam.name} ({fam.vector_env.__name__})\n\n{table}\n")
        return 0
    from gridsim.registry import LEVEL_ID

    ids = gridsim.registered_ids() if args.filter is None else listed_ids(args.filter)
    # An id, and one line on its task where its family has one (the id stays the line's first word).
    described = {env_id: next((d for f in FAMILIES.values() if (d := f.describe(env_id))), None) for env_id in ids}
    if LEVEL_ID in described:  # the registry's own id, of no family
        described[LEVEL_ID] = f"any level by name: gym.make(\"{LEVEL_ID}\", level=\"nav/four_rooms\")"
    width = max((len(env_id) for env_id, d in described.items() if d), default=0)
    for env_id, d in described.items():
        print(f"{env_id:<{width}}  {d}" if d else env_id)
    return 0


def listed_ids(text: str) -> list[str]:
    """The ids ``gridsim list TEXT`` prints: a family's (``minigrid``) and those that start with ``TEXT``.

    An id starts with ``TEXT`` written whole or without ``gridsim/`` (``MiniGrid-Door`` and
    ``gridsim/MiniGrid-Door`` list the same ids); family names and prefixes match in any case.

    Raises:
        gridsim.InvalidArgumentError: no id matches; the message names the closest families and
            id prefixes, each of which matches.
    """
    import gridsim
    from gridsim.errors import InvalidArgumentError, close_matches, did_you_mean
    from gridsim.families import FAMILIES
    from gridsim.levels.lookup import ID_NAMESPACE
    from gridsim.registry import id_family

    ids = gridsim.registered_ids()
    lowered = text.lower()
    listed = [env_id for env_id in ids if env_id.lower().startswith(lowered)
              or env_id.removeprefix(ID_NAMESPACE).lower().startswith(lowered)
              or getattr(id_family(env_id), "name", None) == lowered]
    if listed:
        return listed
    # Suggestions that match: ids cut after one of their words ("MiniGrid-DoorKey") and family names,
    # each once whatever its case, as a family's name where it is one (the match ignores case).
    prefixes = {env_id[:i] for env_id in ids for i, c in enumerate(env_id) if c == "-"} | set(ids)
    prefixes |= {p.removeprefix(ID_NAMESPACE) for p in prefixes}
    choices = {c.lower(): c for c in [*sorted(prefixes), *FAMILIES]}.values()
    raise InvalidArgumentError(f"no id matches {text!r}: name a family ({', '.join(FAMILIES)}) or the start of "
                               f"an id (MiniGrid-Door){did_you_mean(close_matches(text, choices))}")


def _listed_families(text: str | None) -> list[Family]:
    """The families ``gridsim list --settings [TEXT]`` prints: all, or the one named ``TEXT``."""
    from gridsim.errors import InvalidArgumentError, close_matches, did_you_mean
    from gridsim.families import FAMILIES

    if text is None:
        return list(FAMILIES.values())
    if text.lower() not in FAMILIES:
        raise InvalidArgumentError(f"--settings lists a family's settings: name one of {', '.join(FAMILIES)}, "
                                   f"not {text!r}{did_you_mean(close_matches(text, FAMILIES))}")
    return [FAMILIES[text.lower()]]


def _check(args) -> int:
    from gymnasium.utils.env_checker import check_env

    import gridsim
    from gridsim.tools.env_names import make_single

    # Every env is made before any is checked: a name that is no id and no level is one line of
    # error (main prints it), not a traceback after the first results.
    envs = []
    try:
        for name in args.ids or gridsim.registered_ids():
            with warnings.catch_warnings():
                # Gymnasium's notice that a later version of the id exists: check runs every version it is given.
                warnings.filterwarnings("ignore", message=".*is out of date", category=DeprecationWarning)
                envs.append((os.fspath(name), make_single(name)))
    except BaseException:
        for _, env in envs:
            env.close()
        raise
    failed = 0
    for name, env in envs:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                check_env(env.unwrapped, skip_render_check=True)
            print(f"ok      {name}")
        except Exception as e:  # noqa: BLE001 - report every id, then fail
            failed += 1
            print(f"FAILED  {name}: {e}")
        finally:
            env.close()
    return 1 if failed else 0


def _demos(args) -> int:
    from gridsim.minigrid.demos import record_demos

    try:
        summary = record_demos(args.id, args.episodes, args.out, dataset_id=args.dataset_id,
                               num_envs=args.num_envs, seed=args.seed, observations=args.observations,
                               overwrite=args.overwrite, progress=args.progress, num_threads=args.num_threads)
    except OSError as e:  # a root that cannot be written, say
        print(f"gridsim demos: error: {first_line(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"gridsim demos: interrupted; nothing was written under {args.out}", file=sys.stderr)
        return 130
    print(f"wrote {summary.path}: {summary.episodes} episodes, {summary.steps} steps of {summary.env_id} "
          f"(seeds {summary.seeds[0]}..{summary.seeds[1]}, {summary.failed} left out where the bot failed), "
          f"observations {summary.observations}, {summary.bytes / 1e6:.1f} MB in {summary.seconds:.1f} s")
    print(f"open it with MINARI_DATASETS_PATH={summary.root} and minari.load_dataset({summary.dataset_id!r})")
    return 0


def _play(args) -> int:
    from gridsim.tools.play import run as play_run

    return play_run(args.rest)


def _version() -> str:
    """The installed distribution's version (no kernel import), else the package's."""
    from gridsim._version import installed_version

    return installed_version()


ENV_KWARGS_HELP = ("the env's arguments as a JSON object, e.g. '{\"mission_format\": \"tokens\"}' for a "
                   "checkpoint of examples/ppo.py trained on a BabyAI id (its babyai preset's)")


TRUST_PICKLE_HELP = (f"unpickle a --policy file that holds Python objects (a module saved whole with torch.save), "
                     f"which can run any code the file names; needs {TRUST_PICKLE_ENV}=1 in the environment too. "
                     "Checkpoints of examples/ppo.py and TorchScript files need neither")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gridsim`` console script."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # idle BLAS threads would share our core
    argv = sys.argv[1:] if argv is None else list(argv)
    from gridsim.errors import GridSimError

    if argv[:1] == ["play"]:
        # play parses its own arguments; argparse.REMAINDER would drop options before the id.
        from gridsim.tools.play import run as play_run

        return play_run(argv[1:])  # a gridsim error (a name that is no id and no level, say): one line
    parser = argparse.ArgumentParser(prog="gridsim", description="Batched grid worlds.")
    parser.add_argument("--version", action="version", version=f"gridsim {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("bench", help="throughput of a level, by name (env-steps per second)")
    b.add_argument("--level", default="nav/room5_medium", type=level_argument,
                   help="a registered id, timed as registered (gridsim/MiniGrid-DoorKey-8x8-v0, or Minigrid's "
                        "MiniGrid-DoorKey-8x8-v0), a level name as gridsim.make takes it, timed in the family's "
                        "benchmark episodes, or a level file (default: nav/room5_medium)")
    b.add_argument("--level-directory", default=None, metavar="DIR",
                   help="a folder searched for --level before the built-in levels")
    b.add_argument("--num-envs", type=int, default=4096, help="envs in the batch (default: 4096)")
    b.add_argument("--steps", type=int, default=200, help="batched steps per repeat (default: 200)")
    b.add_argument("--repeats", type=int, default=5, help="timed repeats; the best is reported (default: 5)")
    b.add_argument("--seed", type=int, default=0, help="seed of the reset and of the random actions (default: 0)")
    b.add_argument("--obs", nargs="+", default=None,
                   help="observation types to time (navigation default: coords view image; else the level's)")
    b.add_argument("--threads", nargs="+", default=["1"], metavar="N",
                   help="kernel threads to time, each a count or 'auto' (default: 1); several take turns")
    b.add_argument("--json", action="store_true", help="also write JSON lines to stderr")
    b.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar of timed repeats on stderr, with tqdm, on runs over 2 s "
                        "(default: when stderr is a terminal and without --json)")
    b.set_defaults(fn=_bench)
    e = sub.add_parser("eval", help="run a policy for one episode per seed and summarize (gridsim.evaluate)")
    e.add_argument("id", nargs="+", type=level_argument,
                   help="registered ids, level names or level files (gridsim/PixelWorld-room1_small-v0, "
                        "nav/four_rooms, ./mine.txt); an id may leave out gridsim/ (Minigrid's "
                        "MiniGrid-DoorKey-8x8-v0); a registered id wins over a file of the same name, an existing "
                        "file over a level name; with several ids or policies, every policy runs on every env "
                        "and one table is printed (--out: the table)")
    e.add_argument("--policy", action="append", default=None,
                   help="random (uniform, respects action masks; the default), module:attr (a callable, torch "
                        "module, class, or module:factory()) or a .pt file (a checkpoint of examples/ppo.py, "
                        "TorchScript, or a module saved whole: see --trust-pickle); repeat it to compare several")
    e.add_argument("--trust-pickle", action="store_true", help=TRUST_PICKLE_HELP)
    e.add_argument("--sample", action="store_true",
                   help="a checkpoint of examples/ppo.py draws its actions from its categoricals, as in training, "
                        "instead of taking the most likely one (each draw a hash of the episode's seed and step: "
                        "the same episodes whatever --num-envs)")
    e.add_argument("--seeds", default="0:100", help="a:b, a:b:step or a comma list (default 0:100)")
    e.add_argument("--out", default=None,
                   help="write one CSV row per seed here, whole or not at all (with --ray the rows grow in "
                        "OUT.partial, renamed onto OUT when complete; a failed run leaves OUT as it was)")
    e.add_argument("--num-envs", type=int, default=None, help="rows of the batch (default: one per seed, up to 1024)")
    e.add_argument("--max-episode-steps", type=int, default=None, metavar="N",
                   help="truncate every episode after N steps (default: the env's own limit, or for a built-in "
                        "level by name without one, its registered id's: 100 for the kitchens; needed for other "
                        "levels without one)")
    e.add_argument("--env-kwargs", type=_json_object, default=None, metavar="JSON", help=ENV_KWARGS_HELP)
    e.add_argument("--num-threads", default="1", help="kernel threads, a count or 'auto' (default 1)")
    e.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar of finished episodes, with tqdm (default: when stderr is a terminal)")
    e.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="run on Ray actors (gridsim.distributed; pip install 'gridsim-vec[ray]'): on this machine, or "
                        "on the cluster at ADDRESS (auto, ray://head:10001)")
    e.add_argument("--workers", type=int, default=2, help="Ray actors with --ray (default 2)")
    e.set_defaults(fn=_eval)
    r = sub.add_parser("render", help="play one episode with a policy and write it as a GIF, an MP4 or a PNG")
    r.add_argument("id", type=level_argument, help="a registered id, a level name or a level file "
                              "(gridsim/PixelWorld-room1_small-v0, kitchen/open-divider_salad, ./mine.txt), as "
                              "gridsim eval takes them")
    r.add_argument("--seed", type=int, default=0, help="the episode's seed (default 0)")
    r.add_argument("--policy", default="random",
                   help="random (the default), module:attr or a .pt file, as gridsim eval takes it")
    r.add_argument("--trust-pickle", action="store_true", help=TRUST_PICKLE_HELP)
    r.add_argument("--sample", action="store_true",
                   help="a checkpoint's actions drawn as in training: the episode gridsim eval --sample plays "
                        "for this seed")
    r.add_argument("--out", required=True,
                   help="episode.gif or episode.mp4 (every frame; needs imageio, and imageio-ffmpeg for .mp4) "
                        "or frame.png (one frame; needs pillow): pip install \"gridsim-vec[render]\"")
    r.add_argument("--max-steps", type=int, default=None,
                   help="stop after this many steps (default: the episode's end)")
    r.add_argument("--env-kwargs", type=_json_object, default=None, metavar="JSON", help=ENV_KWARGS_HELP)
    r.add_argument("--fps", type=float, default=10.0, help="frames per second of a GIF or MP4 (default 10)")
    r.add_argument("--frame", type=int, default=0,
                   help="the frame a PNG holds: 0 the reset state, K the state after K steps, -1 the last (default 0)")
    r.add_argument("--cell-px", type=int, default=None,
                   help="pixels per cell, 1..256 (default: the env's, 16 for navigation, 32 for gridroboman and "
                        "kitchens)")
    r.add_argument("--overlay", action="store_true",
                   help="write the step and its reward (\"step 3  reward -1\") in a band above each frame")
    r.set_defaults(fn=_render)
    lst = sub.add_parser("list", help="the registered Gymnasium ids (of a family, or starting with a prefix)")
    lst.add_argument("filter", nargs="?", default=None, metavar="family-or-prefix",
                     help="list a family's ids (minigrid) and the ids that start with it, with or without "
                          "gridsim/ (MiniGrid-Door, gridsim/MiniGrid-Door); default: every id")
    lst.add_argument("--settings", action="store_true",
                     help="each family's settings instead (name, kwarg, default); with a family, its own")
    lst.set_defaults(fn=_list)
    c = sub.add_parser("check", help="run gymnasium's check_env on envs (default: every registered id)")
    c.add_argument("ids", nargs="*", type=level_argument, metavar="id",
                   help="registered ids, level names or level files, as gridsim eval takes them")
    c.set_defaults(fn=_check)
    d = sub.add_parser("demos", help="the BabyAI bot's episodes of a BabyAI id, written as a Minari dataset")
    d.add_argument("id", help="a BabyAI id, with or without gridsim/ (BabyAI-GoToLocal-v0; gridsim list BabyAI)")
    d.add_argument("--episodes", type=int, required=True,
                   help="episodes to write (episodes where the bot failed are left out and more are played)")
    d.add_argument("--out", required=True, metavar="ROOT",
                   help="the Minari datasets root to write under (MINARI_DATASETS_PATH when reading): the dataset "
                        "is ROOT/DATASET_ID, written whole or not at all (pip install \"gridsim-vec[demos]\")")
    d.add_argument("--dataset-id", default=None,
                   help="the Minari dataset id, namespace/name-vN (default: gridsim/<id>/bot-v0)")
    d.add_argument("--num-envs", type=int, default=256, help="envs in the batch (default: 256)")
    d.add_argument("--seed", type=int, default=0, help="the first episode's seed; the j-th started is seeded "
                                                      "SEED + j (default: 0)")
    d.add_argument("--observations", default="all", choices=["all", "image", "image+tokens"],
                   help="what each observation keeps: all (image, direction, mission string; the default), image "
                        "(the image alone) or image+tokens (image, direction, mission tokens)")
    d.add_argument("--overwrite", action="store_true", help="replace a Minari dataset already at ROOT/DATASET_ID")
    d.add_argument("--num-threads", default="1", help="kernel threads, a count or 'auto' (default 1)")
    d.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar of finished episodes, with tqdm (default: when stderr is a terminal)")
    d.set_defaults(fn=_demos)
    p = sub.add_parser("play", help="play an env by hand (a window, or text in the terminal); --help lists the keys",
                       add_help=False)
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(fn=_play)
    args = parser.parse_args(argv)
    if args.command == "bench" and args.progress is None:
        args.progress = sys.stderr.isatty() and not args.json  # JSON lines share stderr
    if args.command in ("eval", "demos"):
        if args.progress is None:
            args.progress = sys.stderr.isatty()
        try:
            args.num_threads = int(args.num_threads)
        except ValueError:
            pass  # "auto", checked by the env
    try:
        code = args.fn(args)
        sys.stdout.flush()  # here, where a closed pipe is caught, rather than at exit
        return code
    except GridSimError as error:  # bad input (a level that does not load, say): one line, as argparse's own errors
        print(f"gridsim {args.command}: error: {first_line(error)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader stopped early (gridsim list | head): end quietly, as a pipe's writer does. What
        # is left in stdout's buffer goes nowhere, so that flushing it at exit raises nothing either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
