"""``grpo-desktop lm worker``: the tiny model's training run in a process of its own.

The Training workspace starts it (hidden from ``--help``: it is the window's, not a user's) and
talks to it in JSON lines (:mod:`grpo_desktop.core.tinylm.run_messages`): the run's settings
first, then play / pause / step / quit; it answers with the run's records. In its own process
the run shares no interpreter lock with the window, so a click stays within a frame while it
trains. No Qt here. A reader thread takes commands as they come, so a pause lands after the
step under way; the end of input (the window gone) ends the worker.
"""

from __future__ import annotations

import queue
import sys
import threading
from dataclasses import asdict
from typing import TextIO

from grpo_desktop.core.tinylm.lm_run_snapshot import model_facts
from grpo_desktop.core.tinylm.run_messages import (
    COMMANDS,
    MessageError,
    config_from_message,
    eval_message,
    group_message,
    line,
    read_line,
)

__all__ = ["run_lm_worker"]


def _commands(stream: TextIO, into: queue.Queue[tuple[str, int]]) -> None:
    """Each command line (with its number) as it arrives; "quit" at the end of input (the
    window is gone)."""
    try:
        for text in stream:
            try:
                message = read_line(text)
            except MessageError:
                continue  # not a command: the worker keeps to its run
            command, number = message.get("do"), message.get("id", 0)
            if command in COMMANDS and isinstance(number, int):
                into.put((command, number))
    finally:
        into.put(("quit", -1))


def run_lm_worker(stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Serve one run until told to quit or the input ends; returns the exit status."""
    source = stdin if stdin is not None else sys.stdin
    sink = stdout if stdout is not None else sys.stdout

    def send(message: dict) -> None:
        sink.write(line(message))
        sink.flush()

    try:
        config, checkpoint = config_from_message(read_line(source.readline()))
    except MessageError as error:
        send({"failed": f"The tiny model's run was not started: {error}."})
        return 2
    commands: queue.Queue[tuple[str, int]] = queue.Queue()
    threading.Thread(target=_commands, args=(source, commands), daemon=True).start()
    from grpo_desktop.core.tinylm.grpo import LMTrainingRun
    from grpo_desktop.core.tinylm.model import load_model

    try:
        model = load_model(checkpoint)
        run = LMTrainingRun(config, model)
    except (OSError, ValueError) as error:  # CheckpointError is a ValueError
        text = " ".join(str(error).split()).rstrip(".") or type(error).__name__
        send({"failed": f"The tiny model could not be loaded: {text}."})
        return 0
    facts = model_facts(model, checkpoint)
    send(
        {
            "loaded": {
                "facts": asdict(facts),
                "evaluation": eval_message(run.evals[0]),
            }
        }
    )
    playing, steps_owed, last = False, 0, 0  # last: the number of the latest command read

    def idle() -> None:  # "nothing under way since command number last"
        send({"idle": True, "after": last})

    while True:
        busy = (playing or steps_owed) and not run.finished
        try:
            command, number = commands.get_nowait() if busy else commands.get()
        except queue.Empty:
            command, number = None, last
        if command == "quit":
            return 0
        last = max(last, number)
        if command == "play":
            playing = True
        elif command == "pause":
            playing, steps_owed = False, 0
            idle()
        elif command == "step":
            steps_owed += 1
        if command in ("play", "step") and run.finished:
            idle()  # nothing left to do: say so, or the window waits
        if (playing or steps_owed) and not run.finished:
            metrics = run.step()
            steps_owed = max(0, steps_owed - 1)
            latest = run.evals[-1]
            send(
                {
                    "stepped": {
                        "metrics": metrics.as_dict(),
                        "evaluation": eval_message(latest) if latest.step == metrics.step else None,
                        "groups": [group_message(group) for group in run.groups[-1]],
                    }
                }
            )
            if run.finished or (not playing and not steps_owed):
                playing = False
                idle()
