"""The numpy forward pass of all-MiniLM-L6-v2 against an independent implementation, and its pieces against attn_lib.

attn_lib/minilm/reference.npz was made by tools/make_minilm_reference.py with PyTorch's `transformers`
BertModel (its `about` entry says which versions); nothing in it comes from the code under test.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attn_lib import attention, minilm, softmax
from attn_lib.minilm import D_K, HEADS, LAYERS, layer_norm, merge_heads, split_heads
from attn_lib.minilm.model import erf, gelu

REFERENCE = Path(__file__).resolve().parents[2] / "attn_lib" / "minilm" / "reference.npz"


@pytest.fixture(scope="module")
def reference():
    with np.load(REFERENCE) as data:
        return {key: data[key] for key in data.files}


@pytest.fixture(scope="module")
def run(model, reference):
    return model.run(list(reference["sentences"]))


def test_the_package_points_at_the_fixture():
    assert minilm.REFERENCE_FILE == REFERENCE  # notebook 10 opens it through attn_lib, wherever it runs


def test_the_fixture_says_how_it_was_made(reference):
    about = json.loads(str(reference["about"]))
    assert "BertModel" in about["implementation"] and about["torch"] and about["transformers"]
    assert about["sentences"] == list(reference["sentences"])


def test_tokens_match_the_reference_tokenizer(run, reference):
    np.testing.assert_array_equal(run.ids, reference["input_ids"])
    np.testing.assert_array_equal(run.mask, reference["attention_mask"])
    assert run.tokens[0][0] == "[CLS]" and run.tokens[0][-1] == "[SEP]"


def test_sentence_embeddings_match_the_reference(run, reference):
    assert run.embeddings.shape == reference["embeddings"].shape == (len(reference["sentences"]), 384)
    np.testing.assert_allclose(run.embeddings, reference["embeddings"], atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(run.embeddings, axis=1), 1.0, atol=1e-6)


def test_attention_weights_match_the_reference(run, reference):
    for (sentence, layer, head), expected in zip(reference["heads_kept"], reference["attention_weights"]):
        n = run.mask[sentence].sum()
        got = run.layers[layer].weights[sentence, head]
        np.testing.assert_allclose(got[:n, :n], expected[:n, :n], atol=1e-5, err_msg=f"{sentence, layer, head}")


def test_each_head_is_attn_lib_attention_on_its_own_q_k_v(run):
    # One sentence at a time, without padding: head h of layer l must be softmax(Q K^T / sqrt(d_k)) V on its slice.
    for layer in run.layers:
        assert layer.Q.shape[1:] == (HEADS, run.ids.shape[1], D_K)
        for b, length in enumerate(run.mask.sum(axis=1)):
            for h in range(HEADS):
                Q, K, V = (x[b, h, :length] for x in (layer.Q, layer.K, layer.V))  # (n, d_k) each
                output, weights = attention(Q, K, V, return_weights=True)
                np.testing.assert_allclose(layer.output[b, h, :length], output, rtol=1e-5, atol=1e-6)
                np.testing.assert_allclose(layer.weights[b, h, :length, :length], weights, rtol=1e-5, atol=1e-7)
                by_hand = softmax(Q @ K.T / np.sqrt(D_K))  # (n, d_k) x (d_k, n) -> (n, n)
                np.testing.assert_allclose(weights, by_hand, rtol=1e-4, atol=1e-6)


def test_padding_gets_no_weight_and_changes_no_embedding(model, run, reference):
    for layer in run.layers:
        padded_keys = ~run.mask[:, None, None, :]  # (b, 1, 1, n)
        assert np.all(np.where(padded_keys, layer.weights, 0.0) == 0.0)
        np.testing.assert_allclose(layer.weights.sum(axis=-1), 1.0, atol=1e-5)
    alone = np.concatenate([model.encode([s]) for s in reference["sentences"]])
    np.testing.assert_allclose(alone, run.embeddings, atol=1e-5)


def test_cosine_similarities_rank_as_a_reader_expects(model):
    cat, rug, guitar, instrument, market = model.encode([
        "The cat sat on the mat.", "A cat was sitting on a rug.", "A man is playing a guitar.",
        "Someone is playing an instrument.", "The stock market fell sharply today."])
    assert cat @ rug > cat @ guitar and cat @ rug > cat @ market
    assert guitar @ instrument > guitar @ cat and guitar @ instrument > guitar @ market
    assert instrument @ market < 0.3


def test_removing_the_scaling_sharpens_every_layer(model):
    sentence = ["the cat sat on the mat because it was tired"]
    scaled, unscaled = model.run(sentence), model.run(sentence, scale=1.0)
    for a, b in zip(scaled.layers, unscaled.layers):
        assert b.weights.max(axis=-1).mean() > a.weights.max(axis=-1).mean()
    assert len(scaled.layers) == LAYERS


def test_a_single_string_is_refused_with_a_hint(model):
    with pytest.raises(TypeError, match=r"\[sentence\]"):
        model.run("a sentence")
    with pytest.raises(TypeError, match="non-empty list"):
        model.run([])


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=4, min_side=1, max_side=5).map(
    lambda s: (*s[:-1], 3 * s[-1])), elements=st.floats(-10, 10)))
def test_merge_heads_undoes_split_heads_and_each_head_owns_a_slice(x):
    heads = 3
    d = x.shape[-1] // heads
    split = split_heads(x, heads)
    assert split.shape == (*x.shape[:-2], heads, x.shape[-2], d)
    for h in range(heads):
        np.testing.assert_array_equal(split[..., h, :, :], x[..., h * d:(h + 1) * d])
    np.testing.assert_array_equal(merge_heads(split), x)


@given(st.floats(-8, 8))
def test_erf_is_within_2e_7_of_math_erf(value):
    assert abs(float(erf(np.array(value))) - math.erf(value)) < 2e-7


def test_gelu_is_x_times_the_normal_cdf():
    x = np.linspace(-5, 5, 101)
    expected = np.array([v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x])
    np.testing.assert_allclose(gelu(x), expected, atol=1e-6)
    assert gelu(np.float32([1.0])).dtype == np.float32


@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.float64, (3, 8), elements=st.floats(-100, 100)).filter(lambda a: np.all(a.std(axis=1) > 1e-3)))
def test_layer_norm_rows_have_mean_0_and_variance_1(x):
    out = layer_norm(x, np.ones(8), np.zeros(8))
    np.testing.assert_allclose(out.mean(axis=1), 0.0, atol=1e-9)
    np.testing.assert_allclose(out.var(axis=1), 1.0, rtol=1e-6)


def test_load_reads_the_files_once_and_never_loads_what_is_not_there(model, tmp_path, monkeypatch):
    from attn_lib.minilm import sources

    assert minilm.load() is model  # a notebook and its explorer share one copy of the weights
    assert set(model.paths) == set(sources.FILES)
    monkeypatch.setattr(sources, "_from_hub_cache", lambda: None)
    monkeypatch.setattr(sources, "_installed_wheel_zip", lambda: None)
    with pytest.raises(minilm.WeightsError, match="not on this machine"):
        minilm.load(tmp_path / "empty", download=False)


WORDS = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran", "quickly", "river", "blue", "attention", "is", "all",
         "you", "need", "tokenization", "unbelievable", ",", ".", "?"]


@settings(max_examples=12, deadline=None)
@given(st.lists(st.lists(st.sampled_from(WORDS), min_size=0, max_size=12).map(" ".join), min_size=2, max_size=4))
def test_a_sentence_gets_the_same_vector_alone_or_padded_in_any_batch(model, sentences):
    together = model.encode(sentences)  # padded to the longest; the padding mask must hide the rest
    alone = np.concatenate([model.encode([s]) for s in sentences])
    np.testing.assert_allclose(together, alone, atol=2e-6)
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-6)


def test_positions_must_be_a_bool(model):
    with pytest.raises(TypeError, match="positions must be True or False; got str 'no'"):
        model.run(["a cat"], positions="no")


def test_parameter_count_is_every_float_tensor_and_repr_shows_it(model):
    assert model.parameter_count == 22_713_216
    assert "parameters=22,713,216" in repr(model)


def test_where_names_the_cache_folder_and_never_a_machine_path(model, tmp_path, monkeypatch):
    from attn_lib.minilm import MiniLM, sources

    elsewhere = MiniLM(model.tensors, model.tokenizer)
    elsewhere.paths = {name: tmp_path / "weights" / name for name in sources.FILES}
    assert elsewhere.where == "a folder named weights"
    monkeypatch.chdir(tmp_path)
    assert elsewhere.where == "the folder weights"
    assert str(tmp_path) not in elsewhere.where
    monkeypatch.setenv(sources.CACHE_ENV, str(tmp_path / "weights"))
    assert elsewhere.where == "the cache folder"


@settings(max_examples=10, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=2, max_size=10).map(" ".join), st.randoms(use_true_random=False))
def test_without_positions_every_layer_is_permutation_equivariant(model, sentence, random):
    # F16: with no position embeddings nothing tells a layer where a token stands, so permuting the tokens permutes
    # every layer's output rows, and its weights along both axes.
    ids, _, _ = model.tokenize([sentence])
    order = np.arange(ids.shape[1])
    random.shuffle(order)
    x, x_perm = model.embed(ids, positions=False), model.embed(ids[:, order], positions=False)
    np.testing.assert_allclose(x_perm, x[:, order], atol=1e-6)
    key_mask = np.ones((1, 1, 1, ids.shape[1]), dtype=bool)
    for index in range(LAYERS):
        (x, record), (x_perm, record_perm) = model.layer(x, key_mask, index), model.layer(x_perm, key_mask, index)
        np.testing.assert_allclose(x_perm, x[:, order], atol=1e-4)
        np.testing.assert_allclose(record_perm.weights, record.weights[..., order, :][..., order], atol=1e-5)


def test_the_previous_token_head_needs_the_position_embeddings(model):
    # Layer 0 head 2 is one-hot on the previous token with the positions, and near a uniform row without them.
    sentence = ["the cat sat on the mat because it was tired"]
    with_positions = np.diagonal(model.run(sentence).layers[0].weights[0, 2], offset=-1).mean()
    without = np.diagonal(model.run(sentence, positions=False).layers[0].weights[0, 2], offset=-1).mean()
    assert with_positions > 0.99 and without < 0.2, (with_positions, without)


def test_each_layer_records_the_residual_stream_it_adds_its_heads_to(model):
    # record.residual is the layer's input: the embeddings for layer 0, the previous layer's output after that. The
    # heads' contributions, each head's output times its own rows of W^O, add up with the bias to what the layer adds.
    ids, mask, _ = model.tokenize(["the cat sat on the mat because it was tired"])
    run = model.run(["the cat sat on the mat because it was tired"])
    x = model.embed(ids)
    key_mask = mask[:, None, None, :]
    for index, record in enumerate(run.layers):
        np.testing.assert_allclose(record.residual, x, atol=1e-5)  # float32, another order of summation
        x, _ = model.layer(x, key_mask, index)
        W_o = model.tensors[f"encoder.layer.{index}.attention.output.dense.weight"]
        b_o = model.tensors[f"encoder.layer.{index}.attention.output.dense.bias"]
        heads = record.output[0] @ W_o.T.reshape(HEADS, D_K, -1)  # (heads, n, d_v) x (heads, d_v, d_model)
        np.testing.assert_allclose(heads.sum(axis=0) + b_o, merge_heads(record.output)[0] @ W_o.T + b_o, atol=1e-4)


def test_a_blocked_key_gets_no_weight_in_any_layer_and_the_rows_still_sum_to_one(model):
    sentence = ["the cat sat on the mat because it was tired"]
    n = len(model.run(sentence).tokens[0])
    blocked = model.run(sentence, keys=np.arange(n) != 0)  # every key but [CLS]
    for record in blocked.layers:
        assert np.all(record.weights[..., 0] == 0.0)
        np.testing.assert_allclose(record.weights.sum(axis=-1), 1.0, atol=1e-5)
    np.testing.assert_allclose(model.encode(sentence, keys=np.ones(n, dtype=bool)), model.encode(sentence), atol=1e-6)
    assert model.encode(sentence, keys=np.arange(n) != 0)[0] @ model.encode(sentence)[0] < 0.9


def test_keys_blocks_each_copy_of_a_batch_on_its_own_row(model):
    sentence = "a dog chased the ball"
    n = len(model.run([sentence]).tokens[0])
    together = model.encode([sentence] * n, keys=~np.eye(n, dtype=bool))  # copy j blocks key j
    alone = np.concatenate([model.encode([sentence], keys=np.arange(n) != j) for j in range(n)])
    np.testing.assert_allclose(together, alone, atol=2e-6)


def test_keys_are_refused_with_the_shape_and_the_reason(model):
    with pytest.raises(TypeError, match="keys must be a bool array"):
        model.run(["a cat"], keys=np.array([1, 0, 1, 1]))
    with pytest.raises(ValueError, match=r"keys must broadcast to \(sentences, tokens\) = \(1, 4\).*got shape \(3,\)"):
        model.run(["a cat"], keys=np.ones(3, dtype=bool))
    with pytest.raises(ValueError, match="keys blocks every token of sentence 1"):
        model.run(["a cat sat", "a cat"], keys=np.array([[True] * 5, [False, False, False, False, True]]))
