"""Attention as kernel regression, in numpy.

    >>> import attention
    >>> d = attention.load_dataset()                 # the worked example: 24 samples
    >>> w = attention.weights(3.2, d.x, bandwidth=0.62)
    >>> round(float(w.max()), 3), round(float(attention.effective_points(w)), 1)
    (0.163, 10.2)

This package imports numpy only.  Every public function states its formula.
"""

from .datasets import FUNCTIONS, Dataset, list_datasets, load_dataset, make_dataset
from .learn import (DEFAULT_BANDWIDTH_LEARNING_RATE, DEFAULT_METRIC_LEARNING_RATE, bandwidth_step,
                    load_metric_dataset, loo_loss, loo_loss_and_grad, make_metric_dataset, metric_loss,
                    metric_loss_and_grad, metric_step, similarity_ellipse, train_bandwidth, train_metric)
from .kernels import circle_embedding, key_norm_tilt, softmax
from .regression import (Readout, bias_variance, effective_points, entropy_bits, loo_error,
                         nearest_neighbor_predict, predict, readout, typical_focus, weights)
from .lags import (best_lag, compare_lag_models, fit_lag, lag_attention_loss_and_grad, lag_attention_predict,
                   make_series, train_lag_attention)
from .selfattention import attention_cost, dot_product_attention, multi_head_attention, self_attention
from .sequence import dependency_edges, rnn_forward, sequential_steps, time_rnn_and_attention
from .learn_qk import (DEFAULT_QK_LEARNING_RATE, LearnedWords, QKTrajectory, SenseCorpus, SenseReadout,
                       SenseSentence, learned_words, load_sense_corpus, qk_loss_and_grad, sense_readout, train_qk,
                       untrained_projections)
from .sentences import (MAX_TOKENS, SentenceAnalysis, SentenceModel, analyze_sentence, encode,
                        load_sentence_model, tokenize, word_vector)

__all__ = [
    "weights", "predict", "entropy_bits", "effective_points", "typical_focus", "readout", "Readout",
    "nearest_neighbor_predict", "loo_error", "bias_variance", "softmax", "circle_embedding",
    "key_norm_tilt", "dot_product_attention", "self_attention", "multi_head_attention",
    "attention_cost", "load_dataset", "list_datasets", "make_dataset", "Dataset", "FUNCTIONS",
    "MAX_TOKENS", "tokenize", "word_vector", "encode", "load_sentence_model", "analyze_sentence",
    "SentenceModel", "SentenceAnalysis",
    "loo_loss", "loo_loss_and_grad", "bandwidth_step", "train_bandwidth", "metric_loss", "metric_loss_and_grad",
    "metric_step", "train_metric", "similarity_ellipse", "load_metric_dataset", "make_metric_dataset",
    "DEFAULT_BANDWIDTH_LEARNING_RATE", "DEFAULT_METRIC_LEARNING_RATE",
    "rnn_forward", "dependency_edges", "sequential_steps", "time_rnn_and_attention",
    "make_series", "lag_attention_loss_and_grad", "lag_attention_predict", "train_lag_attention", "fit_lag",
    "best_lag", "compare_lag_models",
    "load_sense_corpus", "SenseCorpus", "SenseSentence", "qk_loss_and_grad", "sense_readout", "SenseReadout",
    "untrained_projections", "train_qk", "QKTrajectory", "learned_words", "LearnedWords",
    "DEFAULT_QK_LEARNING_RATE",
]
__version__ = "0.1.0"
