"""The reward <-> advantage animation: GRPO's two phases, each eased and captioned on the plot.

Forward, bars go from r to r − mean (the par line slides to 0), then to A (divided by the std);
back, the same phases are undone in reverse order. Each phase lasts ``step_ms`` (1.5 s by
default: long enough to read its caption) and the value axis's title names what the bars show by
the end of the phase ("r − mean", then "advantage A"). One ``QVariantAnimation`` on the event loop
drives it (never blocking it), and a frame only interpolates values read off the snapshot once,
so it costs no more than a click.

Stepped (a lecturer's clicker), the animation stops half-way, at exactly r − mean with step 1's
caption, and waits: ``resume`` plays step 2; ``start(..., from_middle=True)`` goes back from
there the other way.

With motion reduced (View ▸ Reduce motion, ``views.common.motion``) nothing tweens: each phase
shows its end state at once (r − mean with step 1's caption, then A with step 2's), holds it for
``step_ms`` and lands; stepped, each key press shows the next step at once. Reducing motion during
an animation puts its phase's end state on screen and goes on so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QAbstractAnimation, QEasingCurve, QObject, QVariantAnimation, Signal

from grpo_desktop.core.lab.lab_snapshot import Push
from grpo_desktop.views.common.advantage_plot import AdvantagePlot
from grpo_desktop.views.common.motion import motion_preference, reduced_motion
from grpo_desktop.views.common.pyqtgraph_internals import is_closed
from grpo_desktop.views.lab.chart_values import AXIS_TITLES, ChartValues

__all__ = ["ANIMATION_MS", "STEP_MS", "ChartAnimator"]

STEP_MS = 1500  # each captioned phase: time to read "Step 1 of 2: subtract par (mean = 0.5) …"
ANIMATION_MS = 2 * STEP_MS  # reward <-> advantage, both phases together


class ChartAnimator(QObject):
    """Animates an ``AdvantagePlot`` between the reward and advantage views, in two phases.

    Each phase takes half of ``animation_ms`` and starts exactly where the previous one ended
    (r, then r − mean to the bit, then A). Value labels hide while bars move. When the animation
    ends, completed or cut short by ``finish``, ``land`` draws the target view's exact state.
    Started ``stepped`` (or told to ``hold`` during phase 1), it waits at r − mean until
    ``resume``.
    """

    # 1 or 2 as a phase starts (heights exact at its start; at its end, motion reduced), 0 at end
    phase_changed = Signal(int)
    animation_finished = Signal()  # a running animation ended: completed or cut short

    def __init__(
        self, plot: AdvantagePlot, land: Callable[[], None], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.animation_ms = ANIMATION_MS
        self._plot = plot
        self._land = land
        self._enabled = True
        self._phase = 0
        self._keyframes: tuple[Sequence[float], ...] = ((), (), ())
        self._line_keys = (0.0, 0.0, 0.0)
        self._line_moves = (False, False)  # per phase: whether the reference line slides
        self._floor_keys = (0.0, 0.0, 0.0)  # the plot's floor mix at each keyframe
        self._reward_extent = 0.0  # the reward view's top value (its own range when hugging)
        self._captions: tuple[str, str] = ("", "")
        self._titles: tuple[str, str] = ("", "")  # the value axis's title during each phase
        self._hold = False  # stop at r − mean and wait for ``resume``
        self._waiting = False
        self._first_progress = 0.0  # a start from the middle ignores the clock's earlier ticks
        self._pushes: Sequence[Push] = ()
        self._texts: Sequence[str] = ()
        self._par_text = "par = 0"
        self._easing = QEasingCurve(QEasingCurve.Type.InOutCubic)
        self._stepwise = False  # motion reduced: each phase shows its end state at once
        motion_preference().changed.connect(self._motion_changed)
        self.clock = QVariantAnimation(self)
        self.clock.setStartValue(0.0)
        self.clock.setEndValue(1.0)  # linear clock; each phase eases itself (InOutCubic)
        self.clock.valueChanged.connect(self._on_frame)
        self.clock.finished.connect(self._clock_finished)

    def set_enabled(self, enabled: bool) -> None:
        """Allow animations or not; turning them off ends a running one at once."""
        self._enabled = bool(enabled)
        if not enabled:
            self.finish()

    def enabled(self) -> bool:
        return self._enabled

    def can_animate(self) -> bool:
        """Whether a view switch should animate (enabled, with a duration)."""
        return self._enabled and self.animation_ms > 0

    def stepwise(self) -> bool:
        """Whether the animation in progress shows its phases as instant steps (motion reduced)."""
        return self._stepwise and self._phase != 0

    def is_running(self) -> bool:
        return self.clock.state() == QAbstractAnimation.State.Running

    def phase(self) -> int:
        """The phase in progress: 1 or 2 (1 while waiting at r − mean), 0 when not animating."""
        return self._phase

    def waiting(self) -> bool:
        """Stopped half-way, at exactly r − mean with step 1's caption, until ``resume``."""
        return self._waiting

    def holding(self) -> bool:
        """Will stop (or has stopped) half-way instead of going on to step 2."""
        return self._hold and self._phase == 1

    @property
    def step_ms(self) -> int:
        """How long each captioned phase lasts."""
        return self.animation_ms // 2

    def title(self) -> str:
        """The value axis's title for the phase in progress ("" when not animating)."""
        return self._titles[self._phase - 1] if self._phase else ""

    def hold(self) -> bool:
        """Stop at the end of phase 1 (r − mean) and wait; False if phase 1 is not running."""
        if self._phase != 1 or self._waiting or self._hold:
            return False
        self._hold = True
        return True

    def resume(self) -> bool:
        """Play step 2 from r − mean; False if not waiting there."""
        if not self._waiting:
            return False
        self._waiting = False
        self._hold = False
        ran_out = self.clock.state() == QAbstractAnimation.State.Stopped  # while it waited
        if ran_out:
            self._first_progress = 0.5
            self.clock.start()
        self.clock.setCurrentTime(self.clock.duration() // 2)  # the frame enters phase 2
        if not ran_out:
            self.clock.resume()
        return True

    def start(
        self,
        values: ChartValues,
        forward: bool,
        stepped: bool = False,
        from_middle: bool = False,
    ) -> None:
        """reward -> advantage (``forward``) or back, in two phases of ``step_ms`` each.

        ``stepped`` waits at r − mean after phase 1; ``from_middle`` starts at r − mean and plays
        only phase 2 (going back from where a stepped animation waits). A waiting animation is
        taken over without landing.
        """
        self.clock.stop()  # a waiting animation: no land, the new one starts where it stands
        self._waiting = False
        self._stepwise = reduced_motion()
        self._hold = stepped and not from_middle
        if forward:
            self._keyframes = (values.rewards, values.centered, values.advantages)
            self._line_keys = (values.mean, 0.0, 0.0)
            self._line_moves = (True, False)
            self._captions = values.forward_captions
            self._titles = (AXIS_TITLES["centered"], AXIS_TITLES["advantage"])
            self._texts = values.advantage_texts
        else:
            self._keyframes = (values.advantages, values.centered, values.rewards)
            self._line_keys = (0.0, 0.0, values.mean)
            self._line_moves = (False, True)
            self._captions = values.reverse_captions
            self._titles = (AXIS_TITLES["centered"], AXIS_TITLES["reward"])
            self._texts = values.reward_texts
        self._pushes = values.pushes
        self._par_text = values.par_text
        # The reward view drops the empty negative half; the bottom edge slides during the phase
        # that leaves or reaches r (the bars leaving 0 need it), so the axis never jumps.
        hug = 1.0 if values.rewards_nonnegative else 0.0
        self._reward_extent = values.reward_extent
        self._floor_keys = (hug, 0.0, 0.0) if forward else (0.0, 0.0, hug)
        # Up front, once: the range covers r, r − mean and A (the chart reserved them), so no
        # frame can grow it.
        self._plot.refit_y_range()
        self._plot.set_labels_suppressed(True)
        duration = max(2, int(self.animation_ms))
        self.clock.setDuration(duration)
        self._phase = 0
        self._first_progress = 0.5 if from_middle else 0.0
        self._enter_phase(2 if from_middle else 1)
        self.clock.start()
        if from_middle:
            self.clock.setCurrentTime(duration // 2)

    def finish(self) -> bool:
        """Cut the animation in progress short at its end state; False if none was in progress."""
        if self._phase == 0:
            return False
        self.clock.stop()  # no finished signal: _end draws the final state
        self._end()
        return True

    def _enter_phase(self, phase: int) -> None:
        """Show phase ``phase``'s caption, axis title and its exact starting heights."""
        self._phase = phase
        self._plot.show_caption(self._captions[phase - 1])
        self._plot.set_value_title(self._titles[phase - 1])
        self._render_frame(phase, 1.0 if self._stepwise else 0.0)
        self.phase_changed.emit(phase)

    def _motion_changed(self, reduced: bool) -> None:
        """Motion reduced mid-animation: the phase's end state now, instant steps from here."""
        if not reduced or self._phase == 0 or self._stepwise or is_closed(self._plot):
            return  # (a closed chart's animator lives on with its widget, drawing nothing)
        self._stepwise = True
        if not self._waiting:
            self._render_frame(self._phase, 1.0)

    def _wait_in_the_middle(self) -> None:
        """Stop at exactly r − mean, step 1's caption still up, until ``resume``."""
        if self.clock.state() == QAbstractAnimation.State.Running:
            self.clock.pause()
        self._waiting = True
        line = self._line_keys[1]
        floor = self._floor_keys[1]
        self._plot.set_floor(floor, self._reward_extent)
        self._plot.set_reference_line(line, "0" if line == 0.0 else self._par_text)
        self._plot.render_bars(self._keyframes[1], self._pushes, self._texts)

    def _render_frame(self, phase: int, eased: float) -> None:
        start, end = self._keyframes[phase - 1], self._keyframes[phase]
        # At eased == 0 the start values themselves: the phase boundary is r − mean to the bit.
        heights = start if eased == 0.0 else [a + eased * (b - a) for a, b in zip(start, end)]
        line_from, line_to = self._line_keys[phase - 1], self._line_keys[phase]
        line = line_from if eased == 0.0 else line_from + eased * (line_to - line_from)
        moving = self._line_moves[phase - 1]
        floor_from, floor_to = self._floor_keys[phase - 1], self._floor_keys[phase]
        self._plot.set_floor(floor_from + eased * (floor_to - floor_from), self._reward_extent)
        at_zero = not moving or (eased == 1.0 and line == 0.0)  # par has arrived at 0
        self._plot.set_reference_line(line, "0" if at_zero else self._par_text)
        self._plot.render_bars(heights, self._pushes, self._texts)

    def _on_frame(self, value: object) -> None:
        """One tick of the clock (about 60 per second, from Qt's animation timer)."""
        if self._phase == 0 or self._waiting or is_closed(self._plot):
            return  # a last tick after the animation was ended, one while it waits or closed
        progress = float(value)  # type: ignore[arg-type]
        if progress < self._first_progress:
            return  # a start from the middle: the clock's first tick is still at 0
        if self._hold and progress >= 0.5:
            self._wait_in_the_middle()
            return
        phase = 1 if progress < 0.5 else 2
        if phase != self._phase:
            self._enter_phase(phase)
        if self._stepwise:
            return  # the phase's end state is on screen already: nothing moves
        local = progress * 2 if phase == 1 else progress * 2 - 1
        eased = self._easing.valueForProgress(min(max(local, 0.0), 1.0))
        if eased != 0.0:
            self._render_frame(phase, eased)

    def _clock_finished(self) -> None:
        """The clock ran out. On a machine too busy to tick in between, its last tick can jump
        from phase 1 to the end: a stepped animation still stops at r − mean and waits."""
        if self._waiting:
            return  # the last tick stopped it in the middle; ``resume`` restarts the clock
        if self._hold and self._phase == 1:
            self._wait_in_the_middle()
            return
        self._end()

    def _end(self) -> None:
        """Completed or cut short: hide the caption and draw the target view's exact state."""
        if self._phase == 0:
            return
        self._phase = 0
        self._waiting = self._hold = self._stepwise = False
        self._plot.hide_caption()
        self._plot.set_labels_suppressed(False)
        self._land()
        self.phase_changed.emit(0)
        self.animation_finished.emit()
