"""How fast a GRPO step on the tiny model goes, part by part, against a matrix-multiply floor.

For one step at the defaults (64 prompts × G = 8 of 2-digit addition) it times: sampling (the
KV-cache decoder), grading, the reference pass (KL), forward + backward, the policy loss
(``policy_loss``) and Adam, each the median of R repeats, beside the floor: one float32 matrix
multiply of the same FLOPs (square, one BLAS thread, as the model runs). The ratio says how far
each part is from pure arithmetic; the rest is Python and numpy's small-array overhead.

    python benchmarks/bench_tinylm.py [--repeats R]
    python benchmarks/bench_tinylm.py --runs [--seeds 0 1 2] [--steps 200]

``--runs`` instead plays whole default runs, one per seed, and prints each one's held-out exact
pass rate at the start and the end, the gain and the wall time (issue 28: the gain must be at
least 0.20 within 200 steps and 120 s for every seed).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from grpo_desktop.core.formulas.clipped_loss import policy_loss
from grpo_desktop.core.tinylm import load_model
from grpo_desktop.core.tinylm.adam import Adam
from grpo_desktop.core.tinylm.batch import completion_pass, teacher_batch
from grpo_desktop.core.tinylm.blas import use_one_blas_thread
from grpo_desktop.core.tinylm.decode import generate
from grpo_desktop.core.tinylm.grpo import LMTrainingRun
from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig
from grpo_desktop.core.tinylm.network import NetworkConfig
from grpo_desktop.core.tinylm.rewards import grade
from grpo_desktop.core.tinylm.tasks import get_task
from grpo_desktop.core.tinylm.vocab import decode, encode


def median_seconds(work: Callable[[], object], repeats: int) -> float:
    work()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def forward_flops(config: NetworkConfig, rows: int, length: int) -> float:
    """Multiply-adds × 2 of one forward pass over ``rows`` sequences of ``length`` tokens."""
    d, f, v = config.d_model, config.d_mlp, config.vocab_size
    per_token = config.n_layers * (2 * d * 3 * d + 2 * d * d + 2 * 2 * d * f + 2 * 2 * length * d)
    return rows * length * (per_token + 2 * d * v)


def decode_flops(config: NetworkConfig, rows: int, prompt: int, new: int) -> float:
    """The sampler's work: the prompt in one pass, then one token at a time over the cache."""
    total = forward_flops(config, rows, prompt)
    for step in range(new):
        total += forward_flops(config, rows, 1) + rows * config.n_layers * 4 * (prompt + step) * (
            config.d_model
        )
    return total


def floor_seconds(flops: float, repeats: int) -> float:
    """One float32 square matmul of ``flops`` (2 n³)."""
    n = max(8, round((flops / 2) ** (1 / 3)))
    a = np.random.default_rng(0).random((n, n), dtype=np.float32)
    b = np.random.default_rng(1).random((n, n), dtype=np.float32)
    return median_seconds(lambda: a @ b, repeats) * flops / (2 * n**3)


def bench_step(repeats: int) -> None:
    use_one_blas_thread()
    config = LMTrainingConfig()
    task = get_task(config.task)
    model = load_model()
    params, net = model.parameters(), model.config
    rng = np.random.default_rng(0)
    prompts = task.train_prompts(rng, config.batch)
    rows = [encode(p) for p in prompts for _ in range(config.group_size)]
    uniforms = rng.random((len(rows), task.max_new))
    written = generate(params, net, rows, task.max_new, uniforms)
    texts = [decode(r) for r in written.tokens]
    flat_prompts = [p for p in prompts for _ in range(config.group_size)]
    batch = teacher_batch(rows, written.tokens, net.n_ctx)
    forward_pass = completion_pass(params, net, batch)
    logp = forward_pass.logp.astype(np.float64)
    advantages = rng.normal(size=len(rows))
    loss = policy_loss(logp, logp, advantages, batch.mask, preset=config.loss_preset)
    grads = forward_pass.gradients(loss.grad_logp)
    copy = {k: v.copy() for k, v in params.items()}
    adam = Adam(copy, lr=config.learning_rate)

    def forward_backward() -> None:
        completion_pass(params, net, batch).gradients(loss.grad_logp)

    prompt_len = 1 + max(len(r) for r in rows)
    length = batch.tokens.shape[1]
    fb_flops = 3 * forward_flops(net, len(rows), length)
    parts = {
        "sampling": (
            lambda: generate(params, net, rows, task.max_new, uniforms),
            decode_flops(net, len(rows), prompt_len, int(written.lengths.max())),
        ),
        "grading": (lambda: grade(task, flat_prompts, texts), None),
        "reference pass": (
            lambda: completion_pass(params, net, batch),
            forward_flops(net, len(rows), length),
        ),
        "forward+backward": (forward_backward, fb_flops),
        "policy_loss": (
            lambda: policy_loss(logp, logp, advantages, batch.mask, preset=config.loss_preset),
            None,
        ),
        "Adam": (lambda: adam.step(copy, grads), 10.0 * model.n_params),
    }
    run = LMTrainingRun(config, model)
    whole = median_seconds(run.step, repeats)
    print(
        f"GRPO step: {config.batch} prompts × G {config.group_size} = {len(rows)} answers, "
        f"{length} tokens a row, {model.n_params:,} parameters, float32, one BLAS thread"
    )
    print(f"{'part':18s} {'ms':>8s} {'floor ms':>9s} {'× floor':>8s}")
    total = 0.0
    for name, (work, flops) in parts.items():
        seconds = median_seconds(work, repeats)
        total += seconds
        if flops:
            floor = floor_seconds(flops, repeats)
            print(f"{name:18s} {seconds * 1e3:8.1f} {floor * 1e3:9.2f} {seconds / floor:8.0f}")
        else:
            print(f"{name:18s} {seconds * 1e3:8.1f} {'-':>9s} {'-':>8s}")
    print(f"{'parts, summed':18s} {total * 1e3:8.1f}")
    print(f"{'whole step':18s} {whole * 1e3:8.1f}  (prompt drawing, encoding, groups kept)")


def bench_runs(seeds: list[int], steps: int) -> None:
    for seed in seeds:
        began = time.perf_counter()
        run = LMTrainingRun(LMTrainingConfig(seed=seed, steps=steps))
        run.run()
        seconds = time.perf_counter() - began
        first, last = run.evals[0], run.evals[-1]
        best = max(e.pass_rate for e in run.evals)
        print(
            f"seed {seed}: held-out exact pass rate {first.pass_rate:.3f} → {last.pass_rate:.3f} "
            f"(gain {last.pass_rate - first.pass_rate:+.3f}, best {best:.3f}), greedy accuracy "
            f"{first.greedy_accuracy:.3f} → {last.greedy_accuracy:.3f}, {steps} steps in "
            f"{seconds:.1f} s",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--runs", action="store_true", help="whole runs, one per seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    if args.runs:
        bench_runs(args.seeds, args.steps)
    else:
        bench_step(args.repeats)


if __name__ == "__main__":
    main()
