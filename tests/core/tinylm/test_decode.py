"""Writing with the key/value cache agrees with reading the same answer in one pass."""

import numpy as np

from grpo_desktop.core.tinylm.batch import completion_pass, teacher_batch
from grpo_desktop.core.tinylm.decode import generate
from grpo_desktop.core.tinylm.model import TinyLM
from grpo_desktop.core.tinylm.vocab import BOS_ID, END_ID, PAD_ID, encode


def noisy_model(dtype=np.float64) -> TinyLM:
    model = TinyLM.initialised(seed=3).astype(dtype)
    rng = np.random.default_rng(0)
    for value in model.parameters().values():
        value += rng.normal(0.0, 0.2, value.shape).astype(dtype)
    return model


PROMPTS = ["7+1=", "23+45=", "sort 31415=", "9+99="]


def test_sampled_logprobs_equal_the_teacher_forced_pass():
    model = noisy_model()
    ids = [encode(p) for p in PROMPTS]
    rows = [i for i in ids for _ in range(3)]
    uniforms = np.random.default_rng(1).random((len(rows), 6))
    written = generate(model.parameters(), model.config, rows, 6, uniforms)
    batch = teacher_batch(rows, written.tokens, model.config.n_ctx)
    read = completion_pass(model.parameters(), model.config, batch).logp
    width = read.shape[1]
    np.testing.assert_allclose(written.logp[:, :width], read, atol=1e-10)
    assert np.all(written.logp[:, width:] == 0)


def test_left_padding_in_a_batch_equals_writing_alone():
    model = noisy_model()
    ids = [encode(p) for p in PROMPTS]
    uniforms = np.random.default_rng(2).random((len(ids), 5))
    together = generate(model.parameters(), model.config, ids, 5, uniforms)
    for row, prompt in enumerate(ids):
        alone = generate(model.parameters(), model.config, [prompt], 5, uniforms[row : row + 1])
        assert alone.tokens[0].tolist() == together.tokens[row].tolist()
        np.testing.assert_allclose(alone.logp[0], together.logp[row], atol=1e-12)


def test_never_writes_padding_or_the_start_token_and_stops_at_the_end_token():
    model = noisy_model(np.float32)
    ids = [encode(p) for p in PROMPTS] * 50
    uniforms = np.random.default_rng(3).random((len(ids), 8))
    written = generate(model.parameters(), model.config, ids, 8, uniforms)
    for row, length, done in zip(written.tokens, written.lengths, written.finished):
        real = row[:length].tolist()
        assert BOS_ID not in real and PAD_ID not in real
        assert np.all(row[length:] == PAD_ID)
        assert done == (real[-1] == END_ID)
        assert END_ID not in real[:-1]


def test_greedy_takes_the_most_likely_token():
    model = noisy_model()
    prompt = encode("23+45=")
    greedy = generate(model.parameters(), model.config, [prompt], 4)
    batch = teacher_batch([prompt], greedy.tokens, model.config.n_ctx)
    forward_pass = completion_pass(model.parameters(), model.config, batch)
    slots = forward_pass.probs[0]
    for index in range(int(greedy.lengths[0])):
        assert greedy.tokens[0, index] == int(np.argmax(slots[index]))
