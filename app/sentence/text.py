"""The self-attention section's words: its intro and notes, fixed HTML written for students (nothing a user types is
placed in them), and the sentences it says when it refuses a sentence."""

from __future__ import annotations

from attention.sentences import MAX_TOKENS

INTRO = """
<h2>Self-attention: every word is a query</h2>
<p>Now the keys and values are the words of a sentence, and the queries come from the same words: three
matrices, W<sub>Q</sub>, W<sub>K</sub> and W<sub>V</sub>, turn each word's vector into its query, key and
value. Every word runs the query from the view above at once, and its weights make one row of the attention
matrix.</p>
<p class="small">The word vectors and the three heads are written by hand, not trained, so every number
means something you can read (water, money, place, ...).</p>
<details><summary>Where this came from, and why divide by &radic;d<sub>k</sub></summary>
<p>Attention is older than the transformer. Around 2014, translation systems read the source sentence with a
recurrent network and, for each word they wrote, attended over its states. The 2017 paper &ldquo;Attention Is
All You Need&rdquo; dropped the recurrence and made self-attention the whole layer.</p>
<p><b>Why divide by &radic;d<sub>k</sub>?</b> A score is the dot product of two vectors of d<sub>k</sub>
entries. With entries of size about 1 it grows like &radic;d<sub>k</sub>, so longer vectors alone would push
the softmax towards one word. Dividing by &radic;d<sub>k</sub> keeps the scores on one scale.</p>
</details>
"""

MATRIX_NOTE = ("<p class=\"small\">Rows are queries, columns are keys; each row adds up to 1 (at the right). "
               "Colour: the weight itself, 0 to 1. "
               "Hover a cell for its weight; click a row, or pick its word, to follow one query.</p>")

TOKENIZE_NOTE = "Words are lowercased and punctuation is dropped before anything else happens."

ROUTING = """
<h3>Context moves meaning</h3>
<p>Each grey dot is a word's value, placed by how much water (across) and money (up) it carries. The
orange-red dot is the selected word's output, their weighted average. In &ldquo;the bank by the river&rdquo;
bank's output moves toward water, in &ldquo;the bank approved the loan&rdquo; toward money: attention moves
information between words.</p>
"""

MULTIHEAD = """
<h3>Several heads at once</h3>
<p>A layer runs several heads side by side, each with its own W<sub>Q</sub>, W<sub>K</sub> and
W<sub>V</sub>, each asking its own question. W<sub>O</sub> mixes their outputs into one vector per word (the
purple diamond above). Click a small matrix to show that head.</p>
"""

COST = """
<h3>The price: n&sup2;</h3>
<p>Every word scores every word, so n words need n&sup2; scores: twice the context, four times the scores,
memory and time (slope 2 on a log&ndash;log plot). At n&nbsp;=&nbsp;131&nbsp;072, one head's matrix of float32
scores takes about 69&nbsp;GB.</p>
<details><summary>More</summary>
<p>Computing the matrix in tiles avoids storing it, but the n&sup2; work remains: this is why context length
is the constraint that shapes long-context models.</p>
</details>
"""

PERSPECTIVE = """
<h3>Keep it in proportion</h3>
<p><b>Attention is one part of a transformer.</b> It moves information between positions; the MLP layers
hold most of the weights, and most stored facts seem to live there.</p>
<p><b>Weights are not explanations.</b> A large weight shows where the average looked, not why the model
decided anything.</p>
<details><summary>Why not</summary>
<p>Quite different weights can give the same output, and later layers can undo what a head did, so an
attention map is not a reliable account of a decision.</p>
</details>
"""

# (how words are split is said once, under the box, with the sentence's tokens: TOKENIZE_NOTE)
INPUT_NOTE = (f"Type a sentence of at most {MAX_TOKENS} words and press Enter. Words the toy "
              "vocabulary does not know get made-up vectors (the same every time).")


# A sentence that is not used: the core's reason (its ValueError, or TOO_LONG) fills {reason}.
REFUSED_TYPED = "That sentence was not used: {reason}. The previous sentence stays."
REFUSED_LINK = "The sentence from the link was not used: {reason}. Showing \u201c{shown}\u201d."
TOO_LONG = "it is longer than {max} characters"   # the link's limit too: a shown sentence always fits the link
