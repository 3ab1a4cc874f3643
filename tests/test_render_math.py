"""LaTeX math in real abstracts, rendered so that it keeps its meaning: a table of constructs
taken from a corpus of 87k conference abstracts, each with the exact text it renders to.

The rules are :mod:`db.seeds.mathtext`'s: operators are words, norms keep their bars, scripts are
Unicode only when every character has a Unicode form, ``\\frac`` is ``a/b``, citations are
``[cite]``, a command whose braces were lost is read with its argument, an unknown one shown as
written.
"""

from __future__ import annotations

import pytest

from db.seeds.render import render_plain, render_segments

#: (source as in an abstract, rendered text)
MATH = [
    # operators keep their names
    (r"$\arg\max_{z\in \mathcal{Z}} z^{\top}\theta_{\ast}$", "arg max_{z∈𝒵} zᵀθ_∗"),
    (r"$\hat x=\arg\min_{x}\|y-Ax_0\|_2+\lambda f(x)$", "x̂=arg minₓ‖y-Ax₀‖₂+λf(x)"),
    (r"$\arg\max$", "arg max"),
    (r"\argmin", "arg min"),
    (r"$\liminf_{p\rightarrow \infty} n/n^*>1$", "lim inf_{p→∞} n/n*>1"),
    (r"$O(t\log t)$", "O(t log t)"),
    (r"$\log^2(T)$", "log²(T)"),
    (r"$n-\lfloor \log t\rfloor +\epsilon$", "n-⌊log t⌋ +ε"),
    (r"$O(\sqrt{T}\log{T})$", "O(√T log T)"),
    (r"$\pi(x) \propto \exp(-V(x))$", "π(x) ∝ exp(-V(x))"),
    (r"$\min_{x}\max_{y} f(x)+y^\top A x-g(y)$", "minₓ max_y f(x)+yᵀA x-g(y)"),
    (r"$\Pr[\xi = 0] \geq o(1)$", "Pr[ξ = 0] ≥ o(1)"),
    (r"$O(T^{\frac{2}{3}}\ln T)$", "O(T^{2/3} ln T)"),
    (r"$\lambda_{\min} ( V_t ) = \Omega (\sqrt{\lambda_{\max}(V_t ) })$",
     "λₘᵢₙ (Vₜ) = Ω (√λₘₐₓ(Vₜ))"),
    (r"$A_{\max}$", "Aₘₐₓ"),
    (r"$(1 - 1/e)\operatorname{OPT} - 2\epsilon$", "(1 - 1/e) OPT - 2ε"),
    # norms, absolute values and bars
    (r"$\|AX’-B\|_F^2 + \lambda \|X’\|_F^2 \leq (1+\epsilon)OPT$",
     "‖AX’-B‖_F² + λ ‖X’‖_F² ≤ (1+ε)OPT"),
    (r"$\|x_t-x_{t+1}\|^{1+\epsilon}$", "‖xₜ-xₜ₊₁‖^{1+ε}"),
    (r"$\|\theta^*\|$", "‖θ*‖"),
    (r"$\lVert A y - b\rVert_2$", "‖A y - b‖₂"),
    (r"$\mathbb{E}\|\bar{\mathbf{Q}}_T-\mathbf{Q}^*\|_{\infty}$", "𝔼‖Q̄_T-Q*‖_∞"),
    (r"$( \Pr (\mathbf{d})\propto {{e}^{-{\left\| \mathbf{d} \right\|_{p}^{p}}/{\lambda }\;}})$",
     "(Pr (d)∝ e^{-‖d‖ₚᵖ/λ})"),
    (r"$|S|$", "|S|"),
    (r"$|V|^{3/2}$", "|V|^{3/2}"),
    (r"$\max(\int \lvert f”(x) \rvert \mathrm{d} x, \lvert  f’(-\infty) + f’(+\infty) \rvert)$",
     "max(∫|f”(x)| d x, |f’(-∞) + f’(+∞)|)"),
    (r"$P(y \mid X=x)$", "P(y | X=x)"),
    (r"$P(Y \mid X) = E_{P(Z \mid X)}[P(Y \mid X,Z)]$", "P(Y | X) = E_{P(Z | X)}[P(Y | X,Z)]"),
    (r"$m =  |\{ i : \mu_i > \max_{j \in [n]} \mu_j - \epsilon\}|$",
     "m = |{i : μᵢ > max_{j ∈ [n]} μⱼ - ε}|"),
    # sub- and superscripts: Unicode when every character has a form, else _{…}/^{…}
    (r"$F_{1}$", "F₁"),
    (r"$O(n^2 + nT(f))$", "O(n² + nT(f))"),
    (r"$O(n^2\mbox{log}n)$", "O(n² log n)"),
    (r"$l_{t} \in [-1,1]^N$", "lₜ ∈ [-1,1]ᴺ"),
    (r"$v_{t} \in \mathbb{R}^{d}$", "vₜ ∈ ℝᵈ"),
    (r"$\gamma=Q^{-1}(e)$", "γ=Q⁻¹(e)"),
    (r"$O(\sum_{i \notin S^*} K\Delta_i^{-1} \log T)$", "O(∑_{i ∉ S*} KΔᵢ⁻¹ log T)"),
    (r"$\mathcal{O}(\epsilon^{-1}\log(1/\epsilon))$", "𝒪(ε⁻¹ log(1/ε))"),
    (r"$\widetilde{O}(\sum_{i = 1}^N \Delta_i^{-2})$", "Õ(∑ᵢ₌₁ᴺ Δᵢ⁻²)"),
    (r"$\mathbb{E}[X_{ij}] = A_{ij}$", "𝔼[Xᵢⱼ] = Aᵢⱼ"),
    (r"$\ell_1$", "ℓ₁"),
    (r"$\ell_{1,2}$", "ℓ_{1,2}"),
    (r"$\ell_\infty$", "ℓ_∞"),
    (r"$\ell_{d}^{\gamma}$", "ℓ_dᵞ"),
    # fractions and roots
    (r"$\frac{1}{1-\gamma}$", "1/(1-γ)"),
    (r"$\frac{1}{2} \log T + O(1)$", "1/2 log T + O(1)"),
    (r"$O(T^{\frac{a+b+1}{a+b+2} + \epsilon})$", "O(T^{(a+b+1)/(a+b+2) + ε})"),
    (r"$(n/\log(n))^{\frac{d}{d+2}}$", "(n/log(n))^{d/(d+2)}"),
    (r"$\widetilde{O}(\frac{ed^2+k}{\epsilon^2})$", "Õ((ed²+k)/ε²)"),
    (r"$\tilde{O}(\tfrac{n}{\theta^4})$", "Õ(n/θ⁴)"),
    (r"$\tfrac 12$", "1/2"),
    (r"$O(1/\sqrt{n})$", "O(1/√n)"),
    (r"$\sqrt{SA/C}$", "√(SA/C)"),
    (r"$\widetilde{O}(\sqrt{K T})$", "Õ(√(K T))"),
    (r"$M_p(u;w) = \sqrt[p]{\sum_{i=1}^g w_i u_i^p}$", "Mₚ(u;w) = ᵖ√(∑ᵢ₌₁ᵍ wᵢ uᵢᵖ)"),
    (r"$O(1/\sqrt[d]{\epsilon})$", "O(1/ᵈ√ε)"),
    (r"$\tilde\mathcal{O}(\sqrt[3]{DS^2AT^2})$", "𝒪̃(³√(DS²AT²))"),
    # fonts, accents, transposes
    (r"$\mathbb{R}^d$", "ℝᵈ"),
    (r"$\boldsymbol x\in\mathbb C^d$", "x∈ℂᵈ"),
    (r"$f:P\times Q\to\mathbb{R}$", "f:P×Q→ℝ"),
    (r"$\mathfrak{S}_n$", "𝔖ₙ"),
    (r"$\mathcal{O}(N^3)$", "𝒪(N³)"),
    (r"$\mathcal{NP}$", "𝒩𝒫"),
    (r"$\widetilde{\mathcal{O}}(d\sqrt{T} + d^{3/2}\mathbb{E}[\tau]\,)$", "𝒪̃(d√T + d^{3/2}𝔼[τ])"),
    (r"$\tilde{O}\big(H\gamma_N\sqrt{N}\big)$", "Õ(Hγ_N√N)"),
    (r"$\tilde{O}(d\cdot\log^*\vert\mathcal{X}\vert)$", "Õ(d·log*|𝒳|)"),
    (r"$\hat{\mathbf{u}}$", "û"),
    (r"$\|\hat{g}(g)\|_2\le R$", "‖ĝ(g)‖₂≤R"),
    (r"$d(\vec{x}_i,\vec{x}_j)$", "d(x⃗ᵢ,x⃗ⱼ)"),
    (r"$y = \vec{w}^{\rm T} \vec{x}+{\varepsilon}$", "y = w⃗ᵀ x⃗+ε"),
    (r"$XX^\top$", "XXᵀ"),
    (r"$u_i^\top A_\star u_i = b_i$", "uᵢᵀA_⋆uᵢ = bᵢ"),
    (r"${\cal L}=L+L^\top\in \mathbb{R}^{n\times n}$", "ℒ=L+Lᵀ∈ℝ^{n×n}"),
    # relations, arrows, operators
    (r"$x_i \sim p(x)$", "xᵢ ∼ p(x)"),
    (r"$h^- \le g \le h^+$", "h⁻ ≤ g ≤ h⁺"),
    (r"$(1-1/e) \approx 0.63$", "(1-1/e) ≈ 0.63"),
    (r"$k \in \{ 3, 4, 5 \}$", "k ∈ {3, 4, 5}"),
    (r"$w:P\to[0,\infty)$", "w:P→[0,∞)"),
    (r"$n \to \infty$", "n → ∞"),
    (r"$N \times d$", "N × d"),
    (r"$3.4\times$", "3.4×"),
    (r"$d(\cdot)$", "d(·)"),
    (r"$\nabla_x \log p(t, x; T, y)$", "∇ₓ log p(t, x; T, y)"),
    (r"$\|\nabla F(x)\|\le \epsilon$", "‖∇F(x)‖≤ε"),
    (r"$|\partial_r(\mathcal{S})|$", "|∂ᵣ(𝒮)|"),
    # text inside math, binomials
    (r"$p(\mathrm{d}x)$", "p(dx)"),
    (r"$\text{K}^2$", "K²"),
    (r"$\mathcal{H_\text{lin}}$", "ℋₗᵢₙ"),
    (r"$\text{poly}(n,d,1/ε)$", "poly(n,d,1/ε)"),
    (r"$\binom{N}{2}$", "(N choose 2)"),
    (r"$\mathcal{O}(\binom{n}{k})$", "𝒪((n choose k))"),
    (r"$\mathcal{N}(\bm{\mu}, \vec{I})$", "𝒩(μ, I⃗)"),
    # commands whose braces a scraper lost
    (r"\mathcalO", "𝒪"),
    (r"\mathbbP", "ℙ"),
    (r"\sqrtT", "√T"),
    (r"\tildeO", "Õ"),
]


@pytest.mark.parametrize(("source", "rendered"), MATH, ids=range(len(MATH)))
def test_math_renders_to_text_that_keeps_its_meaning(source, rendered):
    assert render_plain(source) == rendered


def test_the_table_is_real_and_large_enough():
    """At least 60 constructs, none twice."""
    sources = [source for source, _ in MATH]
    assert len(sources) >= 60 and len(set(sources)) == len(sources)


#: (source as in an abstract, runs of render_segments): citations, emphasis, old font switches
TEXT = [
    (r"the tobacco legislation example of \citet{Abadie2010}, and Brexit.",
     [("the tobacco legislation example of [cite], and Brexit.", "")]),
    (r"(or $G^*$) is still NP-Hard. \cite{ashtiani2016clustering} introduced the framework",
     [("(or ", ""), ("G*", "m"), (") is still NP-Hard. [cite] introduced the framework", "")]),
    (r"the triplet, {\em i.e.}, pairwise distances",
     [("the triplet, ", ""), ("i.e.", "i"), (", pairwise distances", "")]),
    (r"We refer to such networks as \emph{attributed uncertain graphs}.",
     [("We refer to such networks as ", ""), ("attributed uncertain graphs", "i"), (".", "")]),
    (r"training deep networks– \textitInternal Covariate Shift– the current",
     [("training deep networks– ", ""), ("Internal", "i"), (" Covariate Shift– the current", "")]),
    (r"We propose \textsc{HiSampler}, the hard instance sampler",
     [("We propose HiSampler, the hard instance sampler", "")]),
    (r"called \bf Sele\bf ct-and-Ev\bf aluat\bf e (SCALE).",
     [("called Select-and-Evaluate (SCALE).", "")]),
    (r"\textbf{overfocusing}", [("overfocusing", "b")]),
    # commands outside $…$ whose braces were lost
    (r"Given a order-3 tensor \mathbf T of the form \mathbf T = τ⋅v_0",
     [("Given a order-3 tensor T of the form T = τ⋅v_0", "")]),
    (r"We denote by \cal S_n,k the set", [("We denote by 𝒮_n,k the set", "")]),
    (r"we prove the following bounds: \beginitemize \item \mathrmSCDP(C) = Ω(\mathrmLDim(C)),",
     [("we prove the following bounds:  • SCDP(C) = Ω(LDim(C)),", "")]),
]


@pytest.mark.parametrize(("source", "segments"), TEXT, ids=range(len(TEXT)))
def test_citations_and_emphasis_in_text(source, segments):
    assert render_segments(source) == segments


def test_references_ties_and_sized_bars():
    """Constructs the corpus lacks but LaTeX abstracts use: references, ties, ``\\left|``."""
    assert render_plain(r"Section~\ref{sec:exp} and Eq.~\eqref{eq:loss}") == (
        "Section [ref] and Eq. [ref]")
    assert render_plain(r"$\left| \sum_i x_i \right|$") == "|∑ᵢ xᵢ|"
    assert render_plain(r"$x_{\text{max}}$ and $x_{\theta, 1}$") == "xₘₐₓ and x_{θ, 1}"


#: (source, what ``ascii_only`` shows): ASCII scripts, roots and arrows where the rest is ASCII,
#: the source where it is not
ASCII = [
    (r"$O(n^2 + nT(f))$", "O(n^2 + nT(f))"),
    (r"$O(1/\sqrt{n})$", "O(1/sqrt(n))"),
    (r"$\liminf_{p\rightarrow \infty} n/n^*>1$", "lim inf_{p -> inf} n/n^*>1"),
    (r"$\lVert A y - b\rVert_2$", "||A y - b||_2"),
    (r"$XX^\top$", "XX^T"),
    (r"$h^- \le g \le h^+$", "h^- <= g <= h^+"),
    (r"$N \times d$", "N x d"),
    (r"$\mathbb{R}^d$", r"$\mathbb{R}^d$"),
    (r"$\gamma=Q^{-1}(e)$", r"$\gamma=Q^{-1}(e)$"),
]


@pytest.mark.parametrize(("source", "shown"), ASCII, ids=range(len(ASCII)))
def test_ascii_only_shows_ascii_or_the_source(source, shown):
    assert render_plain(source, ascii_only=True) == shown


@pytest.mark.parametrize(("abstract", "name"), [
    (r"We propose a memory efficient \textitAugmented Approximate Gradient (AppGrad) scheme.",
     "AppGrad"),
    (r"We present \emphJUMP-means, a small-variance asymptotic model.", "JUMP-means"),
    (r"We propose an algorithm with regret \sqrtT, called \textitNormalization here.", None),
])
def test_a_name_never_holds_a_latex_command(abstract, name):
    """A brace-less command ("\\textitNormalization", "\\sqrtT") is no part of a derived name."""
    from db.seeds.derive import method_name
    from db.seeds.dictionary import is_english_word

    assert method_name(abstract, is_english_word) == name
