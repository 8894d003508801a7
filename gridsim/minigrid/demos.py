"""BabyAI demonstrations as Minari datasets: :func:`record_demos` (``gridsim demos``).

The batched BabyAI bot (:class:`gridsim.minigrid.bot.BabyAIBot`) plays a batch of a BabyAI id;
every episode it finishes is written to a `Minari <https://minari.farama.org>`_ dataset in
Minari's HDF5 format, which ``minari.load_dataset`` opens (docs/demos.md). Needs
``pip install "gridsim-vec[demos]"`` (minari with h5py, pillow, tqdm).

Episode ``j`` (in the order they are started) is seeded ``seed + j``: it is upstream's env
reset with that seed, played by upstream's bot. Episodes where the bot failed are left out, and
further seeds are started until ``episodes`` episodes are finished; the dataset holds the
``episodes`` lowest seeds whose episode the bot finished, in seed order, whatever ``num_envs``.

The dataset is written in a hidden temporary folder beside its destination and renamed onto it
once complete: an error, a Ctrl-C or a SIGTERM midway leaves nothing at the destination.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from gridsim.errors import InvalidArgumentError, close_matches, did_you_mean

__all__ = ["DEFAULT_NUM_ENVS", "OBSERVATIONS", "DemoSummary", "datasets_root", "default_dataset_id", "record_demos"]

# The observation subsets a dataset may keep, and what each holds (docs/demos.md).
OBSERVATIONS = {
    "all": "image, direction and the mission as a string (the env's own observation)",
    "image": "the image alone (an array, not a dict)",
    "image+tokens": "image, direction and the mission as tokens (mission_format='tokens')",
}
DEFAULT_NUM_ENVS = 256
EXTRA = 'pip install "gridsim-vec[demos]"'
# The file and folder Minari's HDF5 storage reads (minari.dataset._storages.hdf5_storage).
_DATA = "data"
_MAIN_FILE = "main_data.hdf5"
# Finished episodes are written once this many of their steps wait.
_FLUSH_STEPS = 1 << 15
# The bot failing this often (over the episodes asked for, plus a margin) ends the run.
_MAX_FAILURES_PER_EPISODE = 10


@dataclasses.dataclass(frozen=True)
class DemoSummary:
    """What :func:`record_demos` wrote.

    Attributes:
        env_id: the BabyAI id played (``gridsim/BabyAI-GoToLocal-v0``).
        dataset_id: the Minari dataset id (``gridsim/BabyAI-GoToLocal-v0/bot-v0``).
        root: the datasets root the id resolves under (``MINARI_DATASETS_PATH``).
        path: the dataset's folder, ``root / dataset_id``.
        episodes: episodes written.
        steps: steps written (actions; each episode has one observation more).
        failed: episodes started and left out because the bot failed in them.
        truncated: episodes written that ended by truncation (the bot ran out of steps).
        seeds: ``(first, last)`` seed started (each written episode's seed is in between).
        observations: the observation subset kept (a key of :data:`OBSERVATIONS`).
        bytes: the dataset's size on disk.
        seconds: wall time of the whole run.
    """

    env_id: str
    dataset_id: str
    root: Path
    path: Path
    episodes: int
    steps: int
    failed: int
    truncated: int
    seeds: tuple[int, int]
    observations: str
    bytes: int
    seconds: float

    def load(self) -> Any:
        """The dataset as a ``minari.MinariDataset`` (``minari.load_dataset(dataset_id)`` under ``root``)."""
        import minari

        return minari.MinariDataset(self.path / _DATA)


def default_dataset_id(env_id: str) -> str:
    """``gridsim/<BabyAI id>/bot-v0``: the Minari dataset id :func:`record_demos` writes by default."""
    return f"gridsim/{env_id.removeprefix('gridsim/')}/bot-v0"


def datasets_root(root: str | os.PathLike | None = None) -> Path:
    """``root``, or where Minari looks for datasets: ``MINARI_DATASETS_PATH``, else ``~/.minari/datasets``."""
    if root is None:
        root = os.environ.get("MINARI_DATASETS_PATH") or os.path.join(os.path.expanduser("~"), ".minari", "datasets")
    return Path(root)


def record_demos(
    env_id: str,
    episodes: int,
    out: str | os.PathLike | None,
    *,
    dataset_id: str | None = None,
    num_envs: int = DEFAULT_NUM_ENVS,
    seed: int = 0,
    observations: str = "all",
    overwrite: bool = False,
    progress: bool = True,
    num_threads: int = 1,
) -> DemoSummary:
    """Play the BabyAI bot on a batch of ``env_id`` and write ``episodes`` finished episodes as a Minari dataset.

    The dataset goes to ``out / dataset_id``: ``out`` is a Minari datasets root, so that with
    ``MINARI_DATASETS_PATH=out``, ``minari.load_dataset(dataset_id)`` opens it
    (:meth:`DemoSummary.load` opens it whatever the variable). Each episode has its observations
    (the final one included), actions, rewards, terminations and truncations; its seed and
    mission are its metadata (``dataset.storage.get_episode_metadata``: ``seed``, ``mission``)
    and its infos carry the seed (``episode.infos["seed"]``, one per observation).

    Args:
        env_id: a BabyAI id, with or without ``gridsim/`` (``BabyAI-GoToLocal-v0``).
        episodes: episodes to write (>= 1).
        out: the datasets root (created if missing); None: Minari's own root
            (``MINARI_DATASETS_PATH``, else ``~/.minari/datasets``).
        dataset_id: the Minari id, ``namespace/name-vN`` (default: ``gridsim/<env id>/bot-v0``).
        num_envs: envs in the batch (at most ``episodes`` are used).
        seed: the first episode's seed; episode ``j`` (in the order started) is seeded ``seed + j``.
        observations: ``"all"``, ``"image"`` or ``"image+tokens"`` (:data:`OBSERVATIONS`).
        overwrite: replace a dataset already at the destination (only a Minari dataset is
            replaced; the new one is complete before the old one goes).
        progress: a tqdm bar of finished episodes on stderr (none without tqdm).
        num_threads: kernel threads of the batch.

    Returns:
        A :class:`DemoSummary` of what was written.

    Raises:
        InvalidArgumentError: a bad argument, an existing destination without ``overwrite``, or
            minari or h5py missing; raised before anything is written.
    """
    started = time.perf_counter()
    name = _check_env_id(env_id)
    _check_count(episodes, "episodes")
    _check_count(num_envs, "num_envs")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidArgumentError(f"seed must be a non-negative integer, got {seed!r}")
    if observations not in OBSERVATIONS:
        raise InvalidArgumentError(f"observations must be one of {', '.join(OBSERVATIONS)}, got {observations!r}"
                                   f"{did_you_mean(close_matches(str(observations), OBSERVATIONS))}")
    _check_installed()
    dataset_id = default_dataset_id(name) if dataset_id is None else dataset_id
    _check_dataset_id(dataset_id)
    root = datasets_root(out)
    dest = root / dataset_id
    if dest.exists() or dest.is_symlink():
        if not overwrite:
            raise InvalidArgumentError(f"{dest} exists: pass overwrite=True (--overwrite) to replace it")
        if not (dest / _DATA / "metadata.json").is_file() or dest.is_symlink():
            raise InvalidArgumentError(f"{dest} exists and is not a Minari dataset: it is never replaced")

    from gridsim.minigrid.bot import BabyAIBot
    from gridsim.minigrid.env import MinigridVectorEnv

    env = MinigridVectorEnv(min(int(num_envs), int(episodes)), env_name=name, mission_format="tokens",
                            autoreset_mode="disabled", num_threads=num_threads)
    try:
        with _folder_beside(dest) as tmp, _signals_deferred() as check:
            writer = _Writer(tmp / _DATA, env, name, dataset_id, observations)
            writer.check = check
            recorder = _Recorder(env, BabyAIBot(env), int(episodes), int(seed), observations, writer)
            with _progress_bar(progress, int(episodes), name) as bar:
                recorder.run(bar, check)
            writer.finish(recorder)
            check()
            _move_into_place(tmp, dest)
    finally:
        env.close()
    return DemoSummary(
        env_id=f"gridsim/{name}", dataset_id=dataset_id, root=root,
        path=dest, episodes=writer.episodes, steps=writer.steps, failed=recorder.failed,
        truncated=writer.truncated, seeds=(int(seed), int(seed) + recorder.launched - 1),
        observations=observations, bytes=_folder_bytes(dest), seconds=time.perf_counter() - started)


# --------------------------------------------------------------------------- checks


def _check_env_id(env_id: Any) -> str:
    """The BabyAI id's name without ``gridsim/``, or InvalidArgumentError naming the closest ones."""
    from gridsim.minigrid.ids import BABYAI_IDS

    if not isinstance(env_id, str):
        raise InvalidArgumentError(f"env_id must be a BabyAI id (BabyAI-GoToLocal-v0), got {env_id!r}")
    name = env_id.removeprefix("gridsim/")
    if name not in BABYAI_IDS:
        raise InvalidArgumentError(f"demonstrations are played by the BabyAI bot: {env_id!r} is not a BabyAI id "
                                   f"(gridsim list BabyAI){did_you_mean(close_matches(name, BABYAI_IDS))}")
    return name


def _check_count(value: Any, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidArgumentError(f"{what} must be a positive integer, got {value!r}")


def _check_installed() -> None:
    """InvalidArgumentError unless minari, h5py (its HDF5 storage) and pillow (which that storage imports) are there."""
    missing = [m for m in ("minari", "h5py", "PIL") if importlib.util.find_spec(m) is None]
    if missing:
        needs = " (minari needs Python 3.11 or later)" if sys.version_info < (3, 11) else ""
        raise InvalidArgumentError(f"Minari datasets need {', '.join(missing)}: {EXTRA}{needs}")


def _check_dataset_id(dataset_id: Any) -> None:
    """A Minari id with its version (``namespace/name-vN``), as ``minari.load_dataset`` parses it."""
    from minari.dataset.minari_dataset import DATASET_ID_RE

    match = DATASET_ID_RE.fullmatch(dataset_id) if isinstance(dataset_id, str) else None
    if match is None or match.group("version") is None:
        raise InvalidArgumentError(f"dataset_id must be a Minari id with a version, (namespace/)name-vN, "
                                   f"got {dataset_id!r}")


# --------------------------------------------------------------------------- recording


class _Recorder:
    """Plays the bot on the batch and hands each finished episode, in seed order, to the writer.

    A time-major buffer holds every row's steps since the oldest episode still running began:
    slot ``t - base`` is global step ``t``; obs[t] is what the agent saw before action[t], and
    reward, terminated, truncated[t] what that action gave. The batch runs without autoreset:
    rows whose episode ended (or whose bot failed) are reset with the next seed after each step.
    """

    def __init__(self, env: Any, bot: Any, episodes: int, seed: int, observations: str, writer: _Writer):
        self.env, self.bot, self.writer = env, bot, writer
        self.episodes, self.seed = episodes, seed
        self.keep = ("image",) if observations == "image" else ("image", "direction", "mission")
        self.launched = 0  # episodes started: episode j is seeded seed + j
        self.finished = 0  # episodes the bot finished (written or waiting to be)
        self.failed = 0
        n = env.num_envs
        self.episode = np.full(n, -1, np.int64)  # (N,) the episode each row plays, -1: none (idle)
        self.start = np.zeros(n, np.int64)  # (N,) the global step its episode began at
        self.mission = [""] * n  # each row's mission string
        self.done: dict[int, dict[str, Any] | None] = {}  # finished episodes by number; None: the bot failed
        self.next_written = 0  # the episode to hand the writer next
        self.base = 0  # the global step of buffer slot 0
        self.buf: dict[str, np.ndarray] = {}

    def _alloc(self, obs: dict[str, np.ndarray], length: int) -> None:
        n = self.env.num_envs
        self.buf = {f"obs_{k}": np.empty((length, *obs[k].shape), obs[k].dtype) for k in self.keep}
        self.buf.update(actions=np.empty((length, n), np.int64), rewards=np.empty((length, n), np.float64),
                        terminations=np.empty((length, n), np.bool_), truncations=np.empty((length, n), np.bool_))

    def _slot(self, t: int) -> int:
        """Buffer slot of global step t: the buffer drops steps no running episode needs, or grows."""
        length = len(self.buf["actions"])
        if t - self.base < length:
            return t - self.base
        running = self.episode >= 0
        oldest = int(self.start[running].min()) if running.any() else t
        drop = oldest - self.base
        if t - oldest >= length // 2:  # less than half would be free: grow
            grown = {k: np.empty((2 * length, *v.shape[1:]), v.dtype) for k, v in self.buf.items()}
            for k, v in self.buf.items():
                grown[k][:length - drop] = v[drop:]
            self.buf = grown
        else:
            for v in self.buf.values():
                v[:length - drop] = v[drop:]
        self.base = oldest
        return t - self.base

    def _launch(self, rows: np.ndarray) -> list[int | None]:
        """Number the episodes ``rows`` start next (-1: idle); their seeds (None: idle, its stream goes on)."""
        seeds: list[int | None] = [None] * self.env.num_envs
        for r in rows.tolist():
            if self.finished + int((self.episode >= 0).sum()) < self.episodes:
                self.episode[r] = self.launched
                seeds[r] = self.seed + self.launched
                self.launched += 1
            else:
                self.episode[r] = -1
        return seeds

    def _store_obs(self, slot: int, obs: dict[str, np.ndarray], rows: np.ndarray | None = None) -> None:
        for k in self.keep:
            if rows is None:
                self.buf[f"obs_{k}"][slot] = obs[k]
            else:
                self.buf[f"obs_{k}"][slot, rows] = obs[k][rows]

    def _started(self, rows: np.ndarray, obs: dict[str, np.ndarray]) -> None:
        from gridsim.minigrid.babyai import decode_row

        for r in rows.tolist():
            self.mission[r] = decode_row(obs["mission"][r])

    def run(self, bar: Any, check: Callable[[], None] = lambda: None) -> None:
        """Play until ``episodes`` episodes are finished and handed to the writer; ``check()`` after every step."""
        env, bot = self.env, self.bot
        n = env.num_envs
        every = np.arange(n)
        seeds = self._launch(every)
        obs, _ = env.reset(seed=seeds)
        self._alloc(obs, 64)
        self._store_obs(0, obs)
        self._started(every, obs)
        self.start[:] = 0
        suggested = bot.replan()
        t = 0
        max_failed = _MAX_FAILURES_PER_EPISODE * self.episodes + 100
        while (self.episode >= 0).any():
            check()
            failed = suggested < 0
            actions = np.where(failed, 6, suggested)
            obs, rewards, terminations, truncations, _ = env.step(actions)
            slot = t - self.base
            self.buf["actions"][slot] = actions
            self.buf["rewards"][slot] = rewards
            self.buf["terminations"][slot] = terminations
            self.buf["truncations"][slot] = truncations
            t += 1
            slot = self._slot(t)
            self._store_obs(slot, obs)
            ended = terminations | truncations | failed
            rows = np.flatnonzero(ended)
            if len(rows):
                for r in rows.tolist():
                    self._finish(r, t, bool(failed[r]))
                if self.failed > max_failed:
                    raise RuntimeError(f"the bot failed in {self.failed} episodes of {env.env_name} (seeds "
                                       f"{self.seed}..{self.seed + self.launched - 1}) and finished "
                                       f"{self.finished}: stopped")
                self._write_ready()
                if bar is not None and self.finished > bar.n:
                    bar.set_postfix(failed=self.failed, refresh=False)
                    bar.update(self.finished - bar.n)
                obs, _ = env.reset(seed=self._launch(rows), options={"reset_mask": ended})
                self._store_obs(slot, obs, rows)
                self._started(rows, obs)
                self.start[rows] = t
            suggested = bot.replan(actions)

    def _finish(self, row: int, t: int, failed: bool) -> None:
        """Row ``row``'s episode ended at global step ``t`` (its final observation's)."""
        number = int(self.episode[row])
        if number < 0:
            return  # an idle row
        self.episode[row] = -1
        if failed:
            self.failed += 1
            self.done[number] = None
            return
        self.finished += 1
        lo, hi = int(self.start[row]) - self.base, t - self.base
        episode: dict[str, Any] = {k: self.buf[k][lo:hi, row].copy() for k in
                                   ("actions", "rewards", "terminations", "truncations")}
        episode["obs"] = {k: self.buf[f"obs_{k}"][lo:hi + 1, row].copy() for k in self.keep}
        episode["seed"] = self.seed + number
        episode["mission"] = self.mission[row]
        self.done[number] = episode

    def _write_ready(self) -> None:
        """Hand the writer the episodes of the next numbers that are done (the dataset is in seed order)."""
        while self.next_written in self.done:
            episode = self.done.pop(self.next_written)
            self.next_written += 1
            if episode is not None:
                self.writer.add(episode)


# --------------------------------------------------------------------------- writing


class _Writer:
    """Writes episodes in the layout of Minari's HDF5 storage, in batches.

    ``metadata.json`` (the spaces, serialized by Minari) comes from ``MinariStorage.new``; the
    episodes are written with h5py as ``HDF5Storage.update_episodes`` writes them (a group
    ``episode_<id>`` with ``observations``, ``actions``, ``rewards``, ``terminations``,
    ``truncations``, ``infos`` and the attributes ``id``, ``seed``, ``total_steps``), as
    contiguous datasets rather than chunked ones, in HDF5 1.10's object format: about four times
    smaller and twice as fast for the short episodes of BabyAI. Minari reads both alike.
    """

    def __init__(self, data_path: Path, env: Any, name: str, dataset_id: str, observations: str):
        import minari
        from minari.dataset.minari_storage import MinariStorage

        self.data_path = data_path
        self.observations = observations
        image = env.single_observation_space["image"]
        spaces: dict[str, gym.Space] = {"image": image}
        if observations != "image":
            spaces["direction"] = env.single_observation_space["direction"]
            spaces["mission"] = _mission_text_space() if observations == "all" else \
                env.single_observation_space["mission"]
        observation_space = image if observations == "image" else gym.spaces.Dict(spaces)
        data_path.mkdir(parents=True)
        storage = MinariStorage.new(data_path, observation_space=observation_space,
                                    action_space=env.single_action_space, env_spec=_env_spec(name),
                                    data_format="hdf5", jpeg_encoding=False)
        storage.update_metadata({
            "dataset_id": dataset_id,
            "minari_version": minari.__version__,
            "algorithm_name": "BabyAI bot (gridsim.minigrid.bot.BabyAIBot)",
            "description": f"Episodes of gridsim/{name} played by the BabyAI bot, in seed order; observations: "
                           f"{observations} ({OBSERVATIONS[observations]}). Each episode's seed and mission are "
                           "its metadata; episodes where the bot failed are left out.",
        })
        self.storage = storage
        self.pending: list[dict[str, Any]] = []
        self.pending_steps = 0
        self.check: Callable[[], None] = lambda: None  # raises once a stop was asked for (_signals_deferred)
        self.episodes = self.steps = self.truncated = 0

    def add(self, episode: dict[str, Any]) -> None:
        self.pending.append(episode)
        self.pending_steps += len(episode["actions"])
        if self.pending_steps >= _FLUSH_STEPS:
            self.flush()

    def flush(self) -> None:
        import h5py

        if not self.pending:
            return
        string = h5py.string_dtype(encoding="utf-8")
        with h5py.File(self.data_path / _MAIN_FILE, "a", track_order=True, libver=("v110", "latest")) as f:
            for episode in self.pending:
                self.check()
                length = len(episode["actions"])
                group = f.create_group(f"episode_{self.episodes}")
                group.attrs.update({"id": self.episodes, "seed": episode["seed"], "total_steps": length,
                                    "mission": episode["mission"]})
                obs = episode["obs"]
                if self.observations == "image":
                    group.create_dataset("observations", data=obs["image"])
                else:
                    o = group.create_group("observations")
                    o.create_dataset("image", data=obs["image"])
                    o.create_dataset("direction", data=obs["direction"].astype(np.int64))
                    if self.observations == "all":
                        o.create_dataset("mission", data=[episode["mission"]] * (length + 1), dtype=string)
                    else:
                        o.create_dataset("mission", data=obs["mission"])
                for key in ("actions", "rewards", "terminations", "truncations"):
                    group.create_dataset(key, data=episode[key])
                group.create_group("infos").create_dataset("seed", data=np.full(length + 1, episode["seed"],
                                                                                np.int64))
                self.episodes += 1
                self.steps += length
                self.truncated += bool(episode["truncations"][-1])
        self.pending.clear()
        self.pending_steps = 0

    def finish(self, recorder: _Recorder) -> None:
        """Write what waits and the totals."""
        self.flush()
        self.storage.update_metadata({"total_episodes": self.episodes, "total_steps": self.steps,
                                      "dataset_size": self.storage.get_size(),
                                      "gridsim": {"seed": recorder.seed, "seeds_started": recorder.launched,
                                                  "failed": recorder.failed, "observations": self.observations}})


def _mission_text_space() -> gym.spaces.Text:
    """A Text space holding every BabyAI mission: its words' characters, up to the longest mission."""
    from gridsim.minigrid.babyai import MISSION_TOKENS, VOCABULARY

    charset = "".join(sorted(set("".join(VOCABULARY)) | {" "}))
    return gym.spaces.Text(max_length=MISSION_TOKENS * (1 + max(map(len, VOCABULARY))), min_length=1,
                           charset=charset)


def _env_spec(name: str) -> Any:
    """The registered single env's spec (``dataset.recover_environment()`` makes it), or None."""
    try:
        spec = gym.spec(f"gridsim/{name}")
        json.loads(spec.to_json())
    except Exception:  # noqa: BLE001 - the dataset is complete without it
        return None
    return spec


# --------------------------------------------------------------------------- files


@contextlib.contextmanager
def _folder_beside(dest: Path) -> Iterator[Path]:
    """A hidden temporary folder beside ``dest``; it and the folders made for it go if the block raises."""
    made = []
    parent = dest.parent
    while not parent.exists():
        made.append(parent)
        parent = parent.parent
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent))
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        for folder in made:  # innermost first
            with contextlib.suppress(OSError):
                folder.rmdir()  # only while empty
        raise


def _move_into_place(tmp: Path, dest: Path) -> None:
    """Rename the complete dataset onto ``dest``; a dataset already there goes only once the new one is in place."""
    os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes it 0700: give it a new folder's mode
    if not dest.exists():
        os.rename(tmp, dest)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".old", dir=dest.parent))
    os.rename(dest, old / dest.name)
    try:
        os.rename(tmp, dest)
    except BaseException:
        os.rename(old / dest.name, dest)
        raise
    finally:
        shutil.rmtree(old, ignore_errors=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


@contextlib.contextmanager
def _signals_deferred() -> Iterator[Callable[[], None]]:
    """Ctrl-C and SIGTERM stop the run at the next check the block makes (so the temporary folder goes).

    A signal's exception raised wherever the interpreter happens to be (inside a library's
    callback or finaliser, say) can be swallowed there; the handlers here only note the signal,
    and the check raises KeyboardInterrupt (SIGINT) or SystemExit(143) (SIGTERM, where Python
    would just die) between two steps of the batch. Only in the main thread, and only for a
    signal whose handler is Python's default: a handler of the program's own is left alone.
    """
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return
    defaults = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}
    previous = {signum: signal.getsignal(signum) for signum in defaults}
    ours = [signum for signum, handler in previous.items() if handler is defaults[signum]]

    def note(signum: int, frame: Any) -> None:
        caught.append(signum)

    def check() -> None:
        if caught:
            if caught[0] == signal.SIGINT:
                raise KeyboardInterrupt
            raise SystemExit(128 + caught[0])

    for signum in ours:
        signal.signal(signum, note)
    try:
        yield check
    finally:
        for signum in ours:
            signal.signal(signum, previous[signum])


@contextlib.contextmanager
def _progress_bar(enabled: bool, total: int, name: str) -> Iterator[Any]:
    """A tqdm bar of finished episodes on stderr, or None (disabled, or no tqdm)."""
    bar = None
    if enabled:
        try:
            from tqdm import tqdm
        except ImportError:
            pass
        else:
            bar = tqdm(total=total, desc=name, unit="episode")
    try:
        yield bar
    finally:
        if bar is not None:
            bar.close()
