"""Play any gridsim env by hand: ``gridsim play <id>`` or ``python -m gridsim.tools.play <id>``.

With a display it opens a pygame window; without one (for example over ssh), or with
``--terminal``, it draws the env as text in the terminal. Each family's keys are its
row's ``tools.play_help`` (``gridsim play --help`` lists them):

* navigation: arrows move (the four-action type);
* gridroboman: arrows move, L lifts, P puts, N waits;
* kitchens: arrows move the chosen agent (the others wait), Tab or 1-4 choose it, N waits;
* MiniGrid: left/right turn, up forward, P pick up, D drop, T toggle, N done;
* everywhere: R resets, Esc or Q quits (closing the window, Ctrl-C and SIGTERM quit too).

An episode that ends is reset (continuing the same seed's episodes).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Iterator

import gymnasium as gym

from gridsim.engine.rendering import init_pygame
from gridsim.errors import InvalidArgumentError
from gridsim.families import FAMILIES, family_of
from gridsim.registry import register_all
from gridsim.tools.env_names import command_line_env, make_single

QUIT_KEYS = {"escape", "q"}
NEXT_AGENT_KEYS = {"tab", "\t"}  # pygame's name, and the character a terminal sends


class PlaySession:
    """The game loop's logic, independent of where keys come from and frames go to.

    Args:
        env_id: a registered id, a level name or a level file (a ``pathlib.Path``).
        seed: the seed of the first reset.
        render_mode: ``"rgb_array"`` (window) or ``"ansi"`` (terminal).

    Raises:
        gridsim.LevelNotFoundError: ``env_id`` is neither a registered id nor a level name.
    """

    def __init__(self, env_id: str | os.PathLike, seed: int | None = None, render_mode: str = "ansi"):
        self.env = make_single(env_id, render_mode=render_mode)
        try:
            family = family_of(self.env)
            keys = family.tools.play_keys
            if keys is None:
                raise InvalidArgumentError(f"{os.fspath(env_id)}: the {family.name} family has no manual play")
            self.keymap = keys
            n = len(set(keys.values()))
            space = self.env.action_space
            # A joint action of several agents (a kitchen): the keys act for one agent at a time.
            self.joint = isinstance(space, gym.spaces.MultiDiscrete)
            self.num_agents = len(space.nvec) if isinstance(space, gym.spaces.MultiDiscrete) else 1
            if isinstance(space, gym.spaces.Discrete):
                fits = space.n == n
            else:
                fits = isinstance(space, gym.spaces.MultiDiscrete) and space.nvec.ndim == 1 and bool(
                    (space.nvec == n).all())
            if not fits:
                raise InvalidArgumentError(f"{os.fspath(env_id)}: manual play supports the {n}-action type only")
        except BaseException:
            self.env.close()
            raise
        self.idle_action = family.tools.play_idle_action
        self.agent = 0  # the agent the keys move, with several
        self.env.reset(seed=seed)
        self.steps = 0
        self.episode_return = 0.0
        self.message = family.tools.play_help + ", R reset, Esc quit" + self._agent_note()

    def _agent_note(self) -> str:
        return f"  (keys move agent {self.agent + 1} of {self.num_agents})" if self.num_agents > 1 else ""

    def action(self, key: str):
        """The env action of a key of the keymap: with several agents, the chosen one acts and the others idle."""
        if not self.joint:
            return self.keymap[key]
        joint = [self.idle_action] * self.num_agents
        joint[self.agent] = self.keymap[key]
        return joint

    def handle_key(self, key: str) -> bool:
        """Apply one key press; returns False when the session should end."""
        key = key.lower()
        if key in QUIT_KEYS:
            return False
        if key == "r":
            self.env.reset()
            self.steps, self.episode_return = 0, 0.0
            self.message = "reset"
            return True
        if self.num_agents > 1 and (key in NEXT_AGENT_KEYS or key.isdigit()):
            if key.isdigit():
                if not 1 <= int(key) <= self.num_agents:
                    return True
                self.agent = int(key) - 1
            else:
                self.agent = (self.agent + 1) % self.num_agents
            self.message = self._agent_note().strip()
            return True
        if key not in self.keymap:
            return True
        _, reward, terminated, truncated, info = self.env.step(self.action(key))
        self.steps += 1
        self.episode_return += float(reward)
        self.message = f"step {self.steps}  reward {reward:g}  return {self.episode_return:g}" + self._agent_note()
        if terminated or truncated:
            self.message += "  (episode over: " + ("success" if terminated else "time limit") + ", reset)"
            self.env.reset()
            self.steps, self.episode_return = 0, 0.0
        return True

    def frame(self):
        """The current frame: an RGB array or text, by render mode."""
        return self.env.render()

    def close(self):
        """Close the env."""
        self.env.close()


# ------------------------------------------------------------------- terminal


ESCAPES = {"\x1b[A": "up", "\x1b[B": "down", "\x1b[C": "right", "\x1b[D": "left"}


def terminal_keys(read: Callable[[int], str], pending: Callable[[], bool] = lambda: True) -> Iterator[str]:
    """Key names from a character reader (arrow keys arrive as escape sequences).

    ``pending()`` tells whether more characters are waiting: Esc alone is a key, Esc
    followed at once by ``[`` starts an arrow key's sequence.
    """
    while True:
        ch = read(1)
        if ch == "":
            return
        if ch == "\x1b":
            if not pending():
                yield "escape"
                continue
            seq = ch + read(1)
            if seq == "\x1b[":
                seq += read(1)
                yield ESCAPES.get(seq, "")
            else:
                yield "escape"
        elif ch == "\x03":
            return  # Ctrl-C in raw mode
        else:
            yield ch


def play_terminal(session: PlaySession, stdin=None, stdout=None) -> int:
    """Draw as text and read keys from the terminal (raw mode when it is a tty)."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout

    newline = "\n"

    def draw():
        text = "\x1b[H\x1b[2J" + session.frame() + session.message + "\n"
        stdout.write(text.replace("\n", newline))
        stdout.flush()

    restore = None
    pending = lambda: True  # noqa: E731 - a plain stream holds everything it will ever hold
    if stdin.isatty():
        import select
        import termios
        import tty

        fd = stdin.fileno()
        old = termios.tcgetattr(fd)
        tty.setraw(fd)
        newline = "\r\n"  # raw mode turns off the terminal's own \n -> \r\n

        def restore():
            termios.tcsetattr(fd, termios.TCSADRAIN, old)

        def pending():
            return bool(select.select([fd], [], [], 0.05)[0])

        read = lambda n: os.read(fd, n).decode(errors="replace")  # noqa: E731 - unbuffered
    else:
        read = stdin.read
    try:
        draw()
        for key in terminal_keys(read, pending):
            if not session.handle_key(key):
                break
            draw()
    finally:
        if restore is not None:
            restore()
        stdout.write("\n")
    return 0


# --------------------------------------------------------------------- window


PYGAME_KEYS = {"up": "K_UP", "down": "K_DOWN", "left": "K_LEFT", "right": "K_RIGHT", "escape": "K_ESCAPE"}


def play_window(session: PlaySession, max_frames: int | None = None) -> int:
    """A pygame window at 10 frames per second; keys step the env when pressed (and repeat)."""
    import pygame

    names = {getattr(pygame, const): name for name, const in PYGAME_KEYS.items()}
    init_pygame()
    pygame.key.set_repeat(250, 100)
    frame = session.frame()
    window = pygame.display.set_mode(frame.shape[1::-1])
    pygame.display.set_caption(session.env.spec.id if session.env.spec else "gridsim")
    clock = pygame.time.Clock()
    running, frames = True, 0
    try:
        while running:
            for event in pygame.event.get():
                if event.type == pygame.QUIT:
                    running = False
                elif event.type == pygame.KEYDOWN:
                    key = names.get(event.key) or pygame.key.name(event.key)
                    running = session.handle_key(key) and running
            frame = session.frame()
            window.blit(pygame.surfarray.make_surface(frame.swapaxes(0, 1)), (0, 0))
            pygame.display.flip()
            clock.tick(10)
            frames += 1
            if max_frames is not None and frames >= max_frames:
                break
    finally:
        pygame.display.quit()
        pygame.quit()
    return 0


def has_display() -> bool:
    """Whether a window can be opened (an X11 or Wayland display, or not Linux)."""
    if sys.platform != "linux":
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def keys_help() -> str:
    """The keys of every family that has manual play, for ``--help``."""
    rows = [(f.name, f.tools.play_help) for f in FAMILIES.values() if f.tools.play_keys is not None]
    rows.append(("every env", "R reset, Esc or Q quit; an episode that ends is reset"))
    width = max(len(name) for name, _ in rows)
    return "keys:\n" + "\n".join(f"  {name:<{width}}  {text}" for name, text in rows)


def parser() -> argparse.ArgumentParser:
    """The command line of ``gridsim play``."""
    p = argparse.ArgumentParser(
        prog="gridsim play", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Play a gridsim env by hand: a pygame window, or text in the terminal\n"
                    "(without a display or pygame, or with --terminal).", epilog=keys_help())
    p.add_argument("env_id", nargs="?", default=None, type=command_line_env, metavar="id",
                   help="a registered id (gridsim list), a level name or a level file, as gridsim eval takes "
                        "them, e.g. gridsim/Gridroboman-LiftRed-v0, MiniGrid-DoorKey-8x8-v0, nav/four_rooms")
    p.add_argument("--seed", type=int, default=None, help="the seed of the first reset (default: none)")
    p.add_argument("--terminal", action="store_true", help="draw as text even with a display")
    return p


def main(argv: list[str] | None = None) -> int:
    """``python -m gridsim.tools.play <id> [--seed S] [--terminal]``.

    Raises:
        gridsim.InvalidArgumentError: no id given, or an env without manual play.
        gridsim.LevelNotFoundError: a name that is no id and no level.
    """
    register_all()  # the ids (done already where the package was imported)
    args = parser().parse_args(argv)
    if args.env_id is None:
        raise InvalidArgumentError("name the env to play, e.g. gridsim play gridsim/Gridroboman-LiftRed-v0 "
                                   "(gridsim list shows the ids; gridsim play --help the keys)")
    window = not args.terminal and has_display()
    try:
        import pygame  # noqa: F401
    except ImportError:
        window = False
    # SIGTERM ends the session cleanly, like Esc; the caller's handler is back afterwards (a process
    # that plays, then forks workers, must not hand them this one).
    previous = signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt))
    try:
        session = PlaySession(args.env_id, args.seed, "rgb_array" if window else "ansi")
        try:
            return play_window(session) if window else play_terminal(session)
        except KeyboardInterrupt:
            return 0
        finally:
            session.close()
    finally:
        signal.signal(signal.SIGTERM, previous)


def run(argv: list[str] | None = None) -> int:
    """:func:`main`, with a gridsim error as one line on stderr (exit status 2), as every gridsim command."""
    from gridsim.errors import GridSimError, first_line

    try:
        return main(argv)
    except GridSimError as error:
        print(f"gridsim play: error: {first_line(error)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(run())
