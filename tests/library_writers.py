"""Rollout files made the way TRL's and verl's own code makes them, without either library.

Each writer follows the library's code step by step (numpy float32 stands in for torch float32;
pyarrow stands in for pandas' ``to_parquet``, which hands the same Python values to pyarrow):

- :func:`write_trl_completions` follows TRL's ``GRPOTrainer`` (``trl/trainer/grpo_trainer.py``):
  ``_calculate_rewards`` (``None`` → NaN in a float32 tensor), ``_generate_and_score_completions``
  (the reward sum, the v1.6 rule for unscorable completions from commit 1c7c7f9, the
  ``scale_rewards`` and ``multi_objective_aggregation`` branches, ``nan_to_num``), the
  ``_logs`` it fills (``log_extra`` columns flushed in ``sorted`` order, v1.0+), and ``log``,
  which writes ``completions/completions_{global_step:05d}.parquet`` from
  ``{"step", "prompt", "completion", **rewards, **extra, "advantage"}``. Conversations are
  logged as the message lists themselves since "Show conversations (not decoded text) in the
  completions table" (TRL commit de62232; v1.15 per issue 26), as decoded text before.
- :func:`write_verl_dump` follows verl's ``RayPPOTrainer._log_rollout_data`` and
  ``_dump_generations`` (``verl/trainer/ppo/ray_trainer.py``, b178a3c) with the
  ``DAPORewardManager.__call__`` (``verl/workers/reward_manager/dapo.py``) that fills
  ``reward_extra_info`` and adds the overlong penalty.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def _nanstd32(values: np.ndarray, axis=None, keepdims: bool = False) -> np.ndarray:
    """TRL's ``nanstd`` (``trl/trainer/utils.py``): nanmean of squared deviations times
    count / (count − 1), NaN where count ≤ 1; float32 throughout."""
    with np.errstate(all="ignore"):
        mean = np.nanmean(values, axis=axis, keepdims=True)
        variance = np.nanmean((values - mean) ** 2, axis=axis, keepdims=True)
        count = np.sum(~np.isnan(values), axis=axis, keepdims=True).astype(np.float32)
        correction = np.where(count > 1, count / (count - 1), np.float32(np.nan))
        result = np.sqrt((variance * correction).astype(np.float32))
    return result if keepdims else np.squeeze(result, axis=axis)


def trl_advantages(
    rewards_per_func: np.ndarray,
    num_generations: int,
    version: tuple[int, int] = (1, 16),
    scale_rewards: str = "group",
    multi_objective_aggregation: str = "sum_then_normalize",
    reward_weights: Sequence[float] | None = None,
) -> np.ndarray:
    """``GRPOTrainer._generate_and_score_completions``'s advantages, in float32."""
    rpf = np.asarray(rewards_per_func, dtype=np.float32)
    weights = np.asarray(reward_weights or [1.0] * rpf.shape[1], dtype=np.float32)
    unscorable = np.isnan(rpf).all(axis=1)
    new = version >= (1, 6)  # commit 1c7c7f9: unscorable rows NaN, nan-aware baseline
    g = num_generations
    with np.errstate(all="ignore"):
        if multi_objective_aggregation == "sum_then_normalize":
            rewards = np.nansum(rpf * weights[None, :], axis=1).astype(np.float32)
            if new:
                rewards[unscorable] = np.nan
                mean = np.nanmean(rewards.reshape(-1, g), axis=1)
            else:
                mean = rewards.reshape(-1, g).mean(axis=1)
            mean = np.repeat(mean, g).astype(np.float32)
            if scale_rewards in ("group", "none"):
                if new:
                    std = _nanstd32(rewards.reshape(-1, g), axis=1)
                else:
                    std = rewards.reshape(-1, g).std(axis=1, ddof=1)
                std = np.repeat(std, g).astype(np.float32)
            else:  # "batch"
                value = _nanstd32(rewards) if new else rewards.std(ddof=1)
                std = np.full_like(rewards, value)
            advantages = (rewards - mean).astype(np.float32)
            if scale_rewards != "none":
                advantages = (advantages / (std + np.float32(1e-4))).astype(np.float32)
        else:  # normalize_then_sum
            grouped = rpf.reshape(-1, g, rpf.shape[1])
            mean_k = np.nanmean(grouped, axis=1, keepdims=True)
            std_k = _nanstd32(grouped, axis=1, keepdims=True)
            reward_k = ((grouped - mean_k) / (std_k + np.float32(1e-4))).reshape(-1, rpf.shape[1])
            rewards = np.nansum(reward_k * weights[None, :], axis=1).astype(np.float32)
            if new:
                rewards[unscorable] = np.nan
                std = _nanstd32(rewards)
                advantages = (rewards - np.nanmean(rewards)) / (std + np.float32(1e-4))
            else:
                std = rewards.std(ddof=1)
                advantages = (rewards - rewards.mean()) / (std + np.float32(1e-4))
            advantages = advantages.astype(np.float32)
        if new:
            advantages = np.nan_to_num(advantages, nan=0.0)
    return advantages


def trl_table(
    step: int,
    prompts: Sequence[object],
    completions: Sequence[object],
    rewards: dict[str, Sequence[float | None]],
    num_generations: int,
    version: tuple[int, int] = (1, 16),
    extra: dict[str, Sequence[object]] | None = None,
    advantages: Sequence[float] | None = None,
    **advantage_options,
) -> pa.Table:
    """The table ``GRPOTrainer.log`` writes: one row per completion (``prompts`` has one entry
    per row, each repeated ``num_generations`` times as ``RepeatSampler`` yields it)."""
    rpf = np.array(
        [[np.nan if v is None else v for v in column] for column in rewards.values()],
        dtype=np.float32,
    ).T
    if advantages is None:
        advantages = trl_advantages(rpf, num_generations, version, **advantage_options).tolist()
    columns: dict[str, object] = {
        "step": [step] * len(prompts),
        "prompt": list(prompts),
        "completion": list(completions),
    }
    for i, name in enumerate(rewards):  # self._logs["rewards"][name].extend(rpf[:, i].tolist())
        columns[name] = rpf[:, i].tolist()
    if extra and version >= (1, 0):  # for column in sorted(self._pending_extra_logs)
        for name in sorted(extra):
            columns[name] = list(extra[name])
    columns["advantage"] = list(advantages)
    return pa.table(columns)


def write_trl_completions(output_dir: Path, table: pa.Table) -> Path:
    """``df_base.to_parquet(os.path.join(output_dir, "completions",
    f"completions_{global_step:05d}.parquet"))`` — later writes of a step overwrite it."""
    folder = output_dir / "completions"
    folder.mkdir(parents=True, exist_ok=True)
    step = table.column("step")[0].as_py()
    path = folder / f"completions_{step:05d}.parquet"
    pq.write_table(table, path)
    return path


def chat(system: str, user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


# --- verl ----------------------------------------------------------------------------------------


def dapo_reward(
    result: float | dict[str, object],
    response_length: int,
    max_resp_len: int = 20,
    buffer_len: int = 10,
    penalty_factor: float = 1.0,
) -> tuple[float, dict[str, object]]:
    """``DAPORewardManager.__call__`` for one answer with ``overlong_buffer.enable`` and
    ``log``: (the reward placed on the last token, that answer's ``reward_extra_info``)."""
    info: dict[str, object] = {}
    if isinstance(result, dict):
        score = float(result["score"])  # type: ignore[arg-type]
        info.update(result)  # "Store the information including original reward"
    else:
        score = float(result)
        info["acc"] = score
    reward = score
    expected_len = max_resp_len - buffer_len
    exceed_len = response_length - expected_len
    overlong_reward = min(-exceed_len / buffer_len * penalty_factor, 0)
    reward += overlong_reward
    info["overlong_reward"] = overlong_reward
    info["overlong"] = overlong_reward < 0
    return reward, info


def write_verl_dump(
    folder: Path,
    step: int,
    inputs: Sequence[str],
    outputs: Sequence[str],
    gts: Sequence[object],
    rewards: Sequence[float],
    infos: Sequence[dict[str, object]],
    order: Sequence[int] | None = None,
) -> Path:
    """``_log_rollout_data`` then ``_dump_generations``: ``score`` is
    ``token_level_scores.sum(-1)`` (float32), every ``reward_extra_infos_dict`` key is written
    over the base keys; ``order`` is the row order ``_balance_batch`` left (it reorders)."""
    order = list(range(len(inputs))) if order is None else list(order)
    scores = np.asarray(rewards, dtype=np.float32).tolist()
    n = len(inputs)
    base: dict[str, list[object]] = {
        "input": [inputs[i] for i in order],
        "output": [outputs[i] for i in order],
        "gts": [gts[i] for i in order],
        "score": [scores[i] for i in order],
        "step": [step] * n,
    }
    keys: list[str] = []
    for info in infos:
        keys.extend(k for k in info if k not in keys)
    for key in keys:  # for k, v in reward_extra_infos_dict.items(): if len(v) == n
        base[key] = [infos[i][key] for i in order]
    lines = [json.dumps({k: v[i] for k, v in base.items()}, ensure_ascii=False) for i in range(n)]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{step}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
