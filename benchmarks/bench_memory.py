"""Memory over a long lesson: does the window's RSS stay flat over 10,000 random actions?

The real window is built offscreen at 1280×800 and driven the way a user drives it: card clicks
(a real mouse click on a visible card, or keys 1–9 in the Update workspace), G from 2 to 64,
the presets, sampling, the convention, the rewards/advantages toggle, undo and redo, switching
between the Lab, Update, Training and Compare workspaces, a training step and a change of the
Update workspace's settings. Events are processed after every action, as on screen.

After a warm-up (every workspace built, G = 64 seen, the undo history filled to its limit) the
resident set size is recorded, then the actions run from a seeded RNG and the RSS is read again.
Target: growth ≤ 5 MB, with the undo history bounded (workbench.UNDO_LIMIT steps). Where glibc's
malloc_trim exists both ends are also read trimmed, and that growth is judged: the window trims
every 5 s (window/memory_trim.py), so it is the RSS a user sees; the untrimmed growth is printed
beside it (memory the app freed and the allocator had not yet given back).

    python benchmarks/bench_memory.py [--actions N] [--warmup N] [--seed S] [--tracemalloc]

--tracemalloc also reports Python's own allocations: the top growth sites between the end of the
warm-up and the end of the run (slower: every allocation is traced).

Runs offscreen (QT_QPA_PLATFORM=offscreen) unless a platform is set.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import gc
import os
import random
import resource
import sys
import time
import tracemalloc
from dataclasses import replace

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

MB = 1024 * 1024
TARGET_MB = 5.0


def rss_bytes() -> int:
    """The process's resident set size now (Linux: /proc), else its peak (getrusage)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return peak if sys.platform == "darwin" else peak * 1024


def malloc_trim() -> bool:
    """Hand the C allocator's free pages back to the system (glibc only); whether it could."""
    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        trim = None
    if trim is None:
        return False
    trim(0)
    return True


def box_cache() -> tuple[int, int]:
    """The trace cards' shared rounded-box pixmaps: how many, and their bytes (native memory,
    which tracemalloc does not see)."""
    from grpo_desktop.views.lab import trace_card

    cache = trace_card._BOXES.pixmaps
    return len(cache), sum(p.width() * p.height() * p.depth() // 8 for p in cache.values())


class User:
    """Random actions through the window's own controls, from one seeded RNG."""

    def __init__(self, window, app, seed: int) -> None:
        from grpo_desktop.core.formulas.advantages import CONVENTIONS
        from grpo_desktop.core.formulas.clipped_loss import LOSS_PRESETS

        self.window = window
        self.app = app
        self.workbench = window.workbench
        self.rng = random.Random(seed)
        self.conventions = list(CONVENTIONS)
        self.loss_presets = list(LOSS_PRESETS)
        self.counts: dict[str, int] = {}
        # (action, weight) per workspace: only what the user can reach there. While the
        # Training run shows, the group controls and keys 1–9 rest (the window disables them).
        common = [
            (self.convention, 4),
            (self.undo, 12),
            (self.redo, 8),
            (self.switch_workspace, 6),
        ]
        lab = [
            (self.click_card, 30),
            (self.group_size, 8),
            (self.preset, 6),
            (self.sample, 6),
            (self.view, 5),
        ]
        update = [
            (self.card_key, 20),
            (self.update_settings, 15),
            (self.preset, 5),
            (self.sample, 5),
            (self.group_size, 5),
        ]
        training = [(self.training_step, 30), (self.training_config, 2)]
        self.menus = {
            "lab": [*lab, *common],
            "compare": [*lab, *common],
            "update": [*update, *common],
            "training": [*training, *common],
        }

    def act(self) -> None:
        actions, weights = zip(*self.menus[self.workbench.workspace])
        action = self.rng.choices(actions, weights)[0]
        action()
        self.counts[action.__name__] = self.counts.get(action.__name__, 0) + 1
        self.app.processEvents()

    # --- the actions ------------------------------------------------------------------------

    def click_card(self) -> None:
        from PySide6.QtCore import QPoint, Qt
        from PySide6.QtTest import QTest

        from grpo_desktop.views.lab.trace_card import TraceCard

        cards = [
            card
            for card in self.window.findChildren(TraceCard)
            if card.isVisible()
            and "traceCard" in card.objectName()
            and card.objectName() != "traceCardSpare"
        ]
        if not cards:
            return
        card = self.rng.choice(cards)
        centre = QPoint(card.width() // 2, card.height() // 2)
        QTest.mouseClick(card, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre)

    def card_key(self) -> None:
        shortcuts = self.window.card_shortcuts
        self.rng.choice(shortcuts[: self.workbench.active_lab.group_size]).activated.emit()

    def group_size(self) -> None:
        self.window.group_size_spin.setValue(self.rng.randint(2, 64))

    def preset(self) -> None:
        self.rng.choice(list(self.window.reward_pattern_actions.values())).trigger()

    def sample(self) -> None:
        self.window.sample_action.trigger()

    def view(self) -> None:
        self.window.view_toggle.trigger()

    def convention(self) -> None:
        combo = self.window.convention_combo
        index = self.rng.randrange(combo.count())
        combo.setCurrentIndex(index)
        combo.activated.emit(index)  # what a pick from the list sends

    def undo(self) -> None:
        self.window.undo_action.trigger()

    def redo(self) -> None:
        self.window.redo_action.trigger()

    def switch_workspace(self) -> None:
        self.rng.choice(self.window.workspace_actions).trigger()

    def training_step(self) -> None:
        self.window.training_page.controls.step_requested.emit()

    def training_config(self) -> None:
        page = self.window.training_page
        config = self.workbench.training_config
        page.request_config(replace(config, group_size=self.rng.choice((4, 8, 16))))

    def update_settings(self) -> None:
        settings = self.workbench.update_settings
        page = self.window.update_page
        page.request_settings(
            replace(
                settings,
                preset=self.rng.choice(self.loss_presets),
                eps_low=self.rng.choice((0.1, 0.2, 0.3)),
                eps_high=self.rng.choice((0.2, 0.28, 0.4)),
                beta=self.rng.choice((0.0, 0.04, 0.1)),
                inner_steps=self.rng.randint(0, 4),
            )
        )


def settle(app) -> None:
    """Deliver posted events and deferred deletes, then collect, so RSS reads are comparable."""
    from PySide6.QtCore import QCoreApplication, QEvent

    for _ in range(3):
        app.processEvents()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()


def warm_up(user: User, actions: int) -> None:
    """Build every workspace, show G = 64, fill the undo history, then random actions."""
    from grpo_desktop.model.workbench import UNDO_LIMIT

    window, workbench = user.window, user.workbench
    for workspace_action in window.workspace_actions:
        workspace_action.trigger()
        user.app.processEvents()
    user.training_step()
    user.update_settings()
    window.lab_action.trigger()
    window.group_size_spin.setValue(64)
    user.app.processEvents()
    for _ in range(actions):
        user.act()
    window.lab_action.trigger()
    while workbench.undo_stack.count() < UNDO_LIMIT:  # a full history: the run keeps it full
        user.click_card()
        user.app.processEvents()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=10_000, help="random actions measured")
    parser.add_argument("--warmup", type=int, default=500, help="random actions before")
    parser.add_argument("--seed", type=int, default=2026, help="the RNG's seed")
    parser.add_argument(
        "--tracemalloc", action="store_true", help="also report Python's top growth sites"
    )
    parser.add_argument("--top", type=int, default=12, help="growth sites shown")
    args = parser.parse_args()

    from PySide6.QtWidgets import QApplication

    from grpo_desktop.window.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    app.processEvents()
    user = User(window, app, args.seed)
    if args.tracemalloc:
        tracemalloc.start(8)

    started = time.perf_counter()
    warm_up(user, args.warmup)
    settle(app)
    # Both ends are read after a trim as well as without one (the window itself trims every 5 s):
    # the trimmed growth compares like with like, the untrimmed one shows the allocator's slack.
    before = rss_bytes()
    trimmed_before = rss_bytes() if malloc_trim() else None
    snapshot_before = tracemalloc.take_snapshot() if args.tracemalloc else None
    print(
        f"warm-up: {args.warmup} actions ({time.perf_counter() - started:.1f} s), "
        f"RSS {before / MB:.1f} MB, undo stack {window.undo_stack.count()}"
    )

    boxes_before, box_bytes_before = box_cache()
    started = time.perf_counter()
    checkpoints = max(1, args.actions // 5)
    for done in range(1, args.actions + 1):
        user.act()
        if done % checkpoints == 0 or done == args.actions:
            settle(app)
            now = rss_bytes()
            boxes, box_bytes = box_cache()
            print(
                f"  after {done:>6} actions: RSS {now / MB:7.1f} MB ({(now - before) / MB:+5.1f}),"
                f" undo stack {window.undo_stack.count()}, card box cache {boxes} pixmaps "
                f"{box_bytes / MB:.1f} MB"
            )
    elapsed = time.perf_counter() - started
    settle(app)
    after = rss_bytes()
    growth = (after - before) / MB

    print(f"{args.actions} random actions (seed {args.seed}) in {elapsed:.1f} s:")
    print("  " + ", ".join(f"{name} {count}" for name, count in sorted(user.counts.items())))
    print(f"  RSS before {before / MB:.1f} MB, after {after / MB:.1f} MB, growth {growth:+.2f} MB")
    print(
        f"  undo stack {window.undo_stack.count()} commands (limit {window.undo_stack.undoLimit()})"
    )
    if snapshot_before is not None:
        snapshot_after = tracemalloc.take_snapshot()
        stats = snapshot_after.compare_to(snapshot_before, "lineno")
        traced = sum(stat.size_diff for stat in stats)
        print(f"  Python-traced growth {traced / 1024:+.1f} KiB; top sites:")
        for stat in stats[: args.top]:
            frame = stat.traceback[0]
            print(
                f"    {stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks  "
                f"{frame.filename}:{frame.lineno}"
            )
        tracemalloc.stop()
    # Where the growth is: native memory tracemalloc cannot see. Read only after the measurement.
    boxes, box_bytes = box_cache()
    print(
        f"  card box cache (views.lab.trace_card._BOXES): {boxes_before} -> {boxes} pixmaps, "
        f"{box_bytes_before / MB:.1f} -> {box_bytes / MB:.1f} MB"
    )
    trimmed_growth = None
    if trimmed_before is not None and malloc_trim():
        trimmed = rss_bytes()
        trimmed_growth = (trimmed - trimmed_before) / MB
        print(
            f"  both trimmed (malloc_trim, as the window does every 5 s): RSS "
            f"{trimmed_before / MB:.1f} -> {trimmed / MB:.1f} MB ({trimmed_growth:+.2f} MB; "
            f"{(after - trimmed) / MB:.1f} MB at the end was freed memory the allocator kept)"
        )
        from PySide6.QtGui import QPixmapCache

        from grpo_desktop.views.lab import trace_card

        trace_card._BOXES.clear()
        settle(app)
        malloc_trim()
        no_boxes = rss_bytes()
        print(
            f"  and with the card box cache emptied: RSS {no_boxes / MB:.1f} MB "
            f"({(no_boxes - trimmed_before) / MB:+.2f} MB)"
        )
        QPixmapCache.clear()
        settle(app)
        malloc_trim()
        emptied = rss_bytes()
        print(
            f"  and QPixmapCache (Qt's style pixmaps, limit {QPixmapCache.cacheLimit() // 1024}"
            f" MB) too: RSS {emptied / MB:.1f} MB ({(emptied - trimmed_before) / MB:+.2f} MB)"
        )
    # The RSS a user sees: the window trims every 5 s, so the trimmed growth where glibc can.
    judged, how = (growth, "") if trimmed_growth is None else (trimmed_growth, ", both trimmed")
    verdict = "PASS" if judged <= TARGET_MB else "FAIL"
    print(f"{verdict}: RSS growth {judged:+.2f} MB{how} (target <= +{TARGET_MB:.0f} MB)")

    window.undo_stack.setClean()  # nothing to save: closing must not ask
    window.close()
    sys.exit(0 if judged <= TARGET_MB else 1)


if __name__ == "__main__":
    main()
