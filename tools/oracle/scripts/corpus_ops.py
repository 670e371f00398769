"""Op programs of the real-program corpus (gen_corpus.py): small modules that call the operators
PyTorch 2.14's default decomposition table lowers (torch.export.default_decompositions()) and that
the zoo and the HF programs seldom reach, so that `decompose` is judged on each of them
(gen_decomposed.py writes PyTorch's run_decompositions() print). `_dynamic` cases export with a
dynamic batch (and length) so that the decompositions' symbolic sizes are judged too.
"""
import torch
import torch.nn.functional as F


class Factories(torch.nn.Module):
    """new_empty / new_full, the fresh tensors written by zero_ and fill_ (both overloads)."""

    def forward(self, x):
        a = x.new_empty(x.shape)
        a.fill_(2.5)
        b = x.new_empty((x.shape[0], 3)).zero_()
        c = x.new_full((x.shape[0], 4), 1.5)
        e = torch.empty_like(x)
        e.fill_(x[0, 0])
        return a * x, b, c + 1, e


class Products(torch.nn.Module):
    """outer, dot, mv."""

    def forward(self, a, b, m):
        v = a[0]
        return torch.outer(v, b[0]), torch.dot(v, b[0]), torch.mv(m, v), torch.mv(m.double(), v.double())


class Elementwise(torch.nn.Module):
    """rsub (both overloads: a Python number as sub.Tensor's self once lowered), where with a scalar self, masked_fill by a 0-d tensor (of another dtype too) and in place,
    clamp_min / clamp_max, and the activations F spells in place or through another op."""

    def forward(self, x, y):
        mask = x > 0
        r = (1 - x, torch.rsub(x, y), torch.rsub(x, 2.5, alpha=2), 1 - mask.long(),
             torch.where(mask, 0.5, y), torch.where(mask, 2, y.long()), x.masked_fill(mask, torch.tensor(2.0)),
             y.masked_fill(mask, torch.tensor(3)), torch.clamp_min(x, 0.1), torch.clamp_max(y, 0.2), F.relu6(x))
        t = y * 1
        t.masked_fill_(mask, -1.0)
        u = x * 1
        u.masked_fill_(~mask, torch.tensor(3.0))
        p, q, s, w = x + 0, y + 0, x * 2, y * 2
        F.leaky_relu(p, 0.2, inplace=True)
        F.hardtanh(q, -0.5, 0.5, inplace=True)
        F.elu(s, 1.5, inplace=True)
        F.silu(w, inplace=True)
        return r + (t, u, p, q, s, w)


class Reductions(torch.nn.Module):
    """all (every overload), var / std (default, dim, correction; of a half tensor), log_softmax.int."""

    def forward(self, x):
        m = x > -1
        return (m.all(), m.all(dim=1), m.all(dim=(0, 1)), x.var(), x.var(dim=1), x.std(), x.std(dim=0),
                torch.std(x, dim=1, correction=0, keepdim=True), torch.var(x, dim=(0, 1), correction=2),
                x.log_softmax(-1), x.log_softmax(0, dtype=torch.float64), torch.var(x, True), torch.std(x, False),
                torch.var(x.half(), True), torch.std(x.half(), dim=1))


class Shapes(torch.nn.Module):
    """squeeze() of every size-1 dim, detach, triu / tril with diagonals (and of a bool), rms_norm
    (with and without weight and eps, of a half tensor)."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.linspace(0.5, 1.5, 6))

    def forward(self, x):
        s = x.unsqueeze(1).unsqueeze(-1).squeeze()
        sq = x[:, :5, :5]
        return (s * 2, x.detach() + 1, torch.triu(sq), torch.tril(sq, -1), torch.triu(sq, 2), torch.tril(sq > 0),
                F.rms_norm(x, (6,), self.w, 1e-5), F.rms_norm(x, (5, 6)), F.rms_norm(x.half(), (6,)))


class Unlowered(torch.nn.Module):
    """Operators the default table lowers that `decompose` once kept whole: linspace, softplus
    (log1p, dynamo-disabled; its defaults omitted, an int beta, a half input), einsum (ATen's
    contraction planner)."""

    def forward(self, x, y):
        return (x + torch.linspace(0.0, 1.0, 5), F.softplus(y, beta=2.0, threshold=5.0),
                F.softplus(x), torch.einsum("bij,bjk->bik", x.unsqueeze(-1), y.unsqueeze(1)),
                torch.einsum("ij->ji", x), torch.einsum("bi,bi->b", x, y), F.softplus(x.half(), 1.0, 20.0),
                F.softplus(y, beta=2), F.softplus(x, threshold=1))


class Ranges(torch.nn.Module):
    """linspace (torch._refs.linspace: an int arange and a lerp from both ends): float, integer,
    half and double dtypes, int bounds, descending, one and two steps."""

    def forward(self, x):
        return (x + torch.linspace(-1.0, 2.5, 5), torch.linspace(0, 10, 4, dtype=torch.int64),
                torch.linspace(7, -2, 6, dtype=torch.int32), torch.linspace(0.5, 2, 6, dtype=torch.float16),
                torch.linspace(0, 1, 7, dtype=torch.float64), torch.linspace(3.0, 4.0, 1), torch.linspace(2, 5, 2),
                x[:, :3] * torch.linspace(1, 3, 3, dtype=torch.bfloat16))


class Einsum(torch.nn.Module):
    """einsum (ATen's planner: diagonals, unsqueezes, one permute per operand, then pairs contracted
    by sum, mul or permute + reshape + bmm, left to right, or along opt_einsum's path)."""

    def forward(self, x, z, s, q, k):
        return (torch.einsum("ij,jk->ik", x, z), torch.einsum("ik,jk->ji", x, z.t()), torch.einsum("ik,jk->ij", x, x),
                torch.einsum("ii->i", s), torch.einsum("ii", s), torch.einsum("ij->", x), torch.einsum("ij->j", x),
                torch.einsum("i,j->ij", x[0], z[0]), torch.einsum("ij,jk", x, z),
                torch.einsum("bhqd,bhkd->bhqk", q, k), torch.einsum("...qd,...kd->...qk", q, k),
                torch.einsum("ij,jk,kl->il", x, z, z.t()), torch.einsum("bi,bj->b", x, x),
                torch.einsum("bhqd,hd->bhq", q, k[0, :, 0]), torch.einsum("bij,bkj->bik", q[:, 0], k[:, 0]),
                torch.einsum("bhqd,bhkd->bhqk", q.transpose(0, 1), k.transpose(0, 1)), torch.einsum("ij,jk->i", x, z),
                torch.einsum("ij,ij->ij", x, x[:1]), torch.einsum("iji->ij", s.unsqueeze(1).expand(5, 3, 5)))


class OneHot(torch.nn.Module):
    """one_hot: its class checks (_assert_async.msg, kept however dead) and the comparison."""

    def forward(self, idx):
        return F.one_hot(idx, num_classes=7), F.one_hot(idx.clamp(0, 5) % 7, 7).sum(0)


class IndexAdd(torch.nn.Module):
    """index_add (alpha 1 and not), in place, over dims 0 and 1; the MoE combine of granitemoe."""

    def forward(self, x, src, idx):
        z = torch.zeros(x.shape[0], x.shape[1])
        out = z.index_add(0, idx, src)
        t = x * 1
        t.index_add_(0, idx, src, alpha=2.0)
        u = x.index_add(1, idx[:3], x[:, :3] * 2)
        return out, t, u


class RepeatInterleave(torch.nn.Module):
    """repeat_interleave by a tensor of counts: a size that depends on the counts' values (a fresh
    unbacked symbol, asserted >= 0), along each dim, flattened (no dim), a single count broadcast
    (1-element and 0-d, with output_size), the Tensor overload itself, and ops on the result."""

    def forward(self, x, r, c):
        a = x.repeat_interleave(r, 0)
        b = torch.repeat_interleave(x, c, dim=-1)
        f = x.repeat_interleave(c[:1])
        s = x.repeat_interleave(torch.tensor(2), dim=1, output_size=x.shape[1] * 2)
        t = torch.repeat_interleave(r)
        return a[:, :2] + 1, b * 2, f, s, t, a.sum(0)


class InplaceActivations(torch.nn.Module):
    """The in-place ops whose metas are torch._refs on C++ functionalization's meta copies
    (masked_fill_ by a 0-d tensor, leaky_relu_, hardtanh_, elu_, silu_), on 3-D tensors."""

    def forward(self, x, y):
        mask = x > 0
        u = x * 1
        u.masked_fill_(~mask, torch.tensor(3.0))
        p, q, s, w = x + 0, y + 0, x * 2, y * 2
        F.leaky_relu(p, 0.1, inplace=True)
        F.hardtanh(q, -1.0, 2.0, inplace=True)
        F.elu(s, 0.5, inplace=True)
        F.silu(w, inplace=True)
        v = y * 3
        v.masked_fill_(mask, torch.tensor(-2.0))
        return u, p, q, s, w, v


class InplaceActivationsStrided(torch.nn.Module):
    """The same in-place ops on dense non-contiguous tensors (transposed products): the references'
    outputs follow the stride order (empty_permuted's physical sizes), clamp_ too; a 4-D one's
    copy_ asks c10's channels-last contiguity first."""

    def forward(self, x, y):
        p = x.transpose(1, 2) * 1
        F.silu(p, inplace=True)
        q = y.transpose(0, 1) + 0
        F.leaky_relu(q, 0.2, inplace=True)
        s = (x + y).transpose(0, 2) * 2
        F.elu(s, 0.5, inplace=True)
        w = x[:, 0].t() * 3
        F.hardtanh(w, -1.0, 2.0, inplace=True)
        c = y.transpose(1, 2) - 1
        c.clamp_(-0.5, 0.5)
        m = x.reshape(x.shape[0], x.shape[1], 2, 2).transpose(1, 2) * 1
        F.silu(m, inplace=True)
        return (p * 2).sum(1), q + 1, s, w, c * c, m.sum(2) + 1


class MaskedFillStrided(torch.nn.Module):
    """masked_fill_ on a transposed product, by a mask of its layout and by a contiguous one: the
    reference's where follows the layout, so its last `r.contiguous()` is a clone."""

    def forward(self, x, y):
        a = x.transpose(1, 2) * 1
        a.masked_fill_(a > 0, torch.tensor(3.0))
        b = y.transpose(1, 2) + 0
        b.masked_fill_(x.transpose(1, 2).contiguous() > 0.5, -1.0)
        return (a * 3 + 1).sum(1), b * a


class InplaceUnary(torch.nn.Module):
    """Unary in-place ops whose meta is their reference's in-place wrapper (one prim each;
    sigmoid_'s four; clamp_min_/clamp_max_ clamp's with one bound), on contiguous and transposed
    tensors."""

    def forward(self, x, y):
        a = x * 1
        a.sigmoid_().clamp_min_(0.25)
        b = y.transpose(1, 2) * 2
        b.tanh_().neg_().exp_().clamp_max_(1.5)
        c = (x - y).abs_().add_(1)
        c.log_()
        d = y.transpose(1, 2) + 3
        d.abs_().rsqrt_()
        return (a * y + 1 - y) / 2 > 0, a.sum(1) - 3, (b * d).sum(2), c == y


class InplacePow(torch.nn.Module):
    """pow_ (a number exponent: 2 is `a * a` in its reference, 3 prims.pow; a tensor exponent) and
    addcmul_ on dynamic shapes: their metas' checks on the meta copies."""

    def forward(self, x, y):
        a = x * 1
        a.pow_(2).addcmul_(x, y, value=0.5)
        b = y.transpose(1, 2) + 2
        b.pow_(y.transpose(1, 2).abs())
        c = x.abs() + 1
        c.pow_(3.0)
        return a + c, b.sum(2)


class MaskedScatter(torch.nn.Module):
    """masked_scatter as multimodal models merge image features into the token embeddings (a
    per-token mask expanded over the hidden dim), and masked_scatter_ in place."""

    def forward(self, x, y):
        mask = (x[..., :1] > 0).expand_as(x)
        merged = x.masked_scatter(mask, y * 2)
        z = y * 1
        z.masked_scatter_(y < 0, x)
        return merged + 1, z.sum(1)


class InplaceBinary(torch.nn.Module):
    """In-place binary and ternary ops user code writes (pow_, //=, addcmul_, triu_/tril_): each
    functionalizes to the op of its signature (pow.Tensor_Scalar, floor_divide, ...)."""

    def forward(self, x, y):
        a = x * 1
        a.pow_(2).addcmul_(x, y, value=0.5)
        b = y.transpose(1, 2) + 2
        b.pow_(y.transpose(1, 2).abs())
        c = x.abs() + 1
        c //= y.abs() + 0.5
        d = x[:, :, :5] * 1
        d.triu_(1)
        e = y[:, :, :5] - 1
        e.tril_()
        return a + c, b.sum(2), d + e


class MaskedFillLayouts(torch.nn.Module):
    """masked_fill_ by a 0-dim tensor where the mask's layout is not self's: the reference's where
    follows the mask's (first in the stride sort), so it clones only for a non-contiguous mask."""

    def forward(self, x, y):
        a = x * 1
        a.masked_fill_((y.transpose(1, 2) * 1).transpose(1, 2) > 0, torch.tensor(2.0))
        b = x.transpose(1, 2) * 2
        b.masked_fill_(b.contiguous() < 0, torch.tensor(0.5))
        return a * 3, a.sum(1), b + 1


class InplaceTriu(torch.nn.Module):
    """triu_/tril_ where the mask's rows, columns or both are symbolic (their reference runs on the
    meta copy: arange(h), arange(w), the broadcasting sub, where), diagonals of both signs."""

    def forward(self, x, y):
        a = x * 1
        a.triu_(1)
        s = x[0] @ y[0].transpose(0, 1)
        s.tril_(-1)
        c = x[0].t().contiguous()
        c.triu_(-2)
        d = y.sum(1)
        d.tril_(2)
        return a + 1, s * 2, c - 1, d.sum(0)


class InplaceFloorDivide(torch.nn.Module):
    """floor_divide_ of float tensors on dynamic shapes (its meta is the float floor division's
    reference on the meta copies): 3-D, a square of symbolic sides, 2-D rows."""

    def forward(self, x, y):
        a = x.abs() + 1
        a //= y.abs() + 0.5
        b = x[0] @ y[0].t()
        b //= b.abs() + 1
        c = x.sum(2)
        c.floor_divide_(y.mean(2) - 2)
        return a * 2, b.sum(0), c + 1


class MaskedFillBroadcast(torch.nn.Module):
    """masked_fill_ by a 0-dim tensor with a mask that broadcasts to self: a size-1 dim, fewer
    dims (the reference's where expands it)."""

    def forward(self, x, y):
        a = x * 1
        a.masked_fill_(y[:, :1] > 0, torch.tensor(2.0))
        b = x * 2
        b.masked_fill_(y[0, 0] > 0.5, torch.tensor(-1.0))
        c = x[0] * 3
        c.masked_fill_(y[0, :, :1] < 0, torch.tensor(0.25))
        return a + 1, b.sum(1), c - 1


class ToCopyViews(torch.nn.Module):
    """dtype conversions (_to_copy) of views that are not dense: slices, a transposed slice."""

    def forward(self, x, y):
        a = x[:, :, :2].double()
        b = x[:, :, 1:5].transpose(1, 2).double()
        c = y.transpose(1, 2)[:, 1:4].to(torch.float16)
        d = x.reshape(x.shape[0], x.shape[1], 2, 3)[..., :2].transpose(2, 3).double()
        return a * 2, b + 1, c.float().sum(1), d.sum(3)


class ViewsOps(torch.nn.Module):
    """Ops on views that are not contiguous (transposed) or not dense (slices): their outputs'
    strides on dynamic shapes, as FakeTensor's metas give them."""

    def forward(self, x, y):
        t = x.transpose(1, 2)
        s = x[:, :, 1:5]
        u = y[:, :, 1:5].transpose(1, 2)
        return (t.clone(), s.clone(), u.clone(), torch.zeros_like(u), s.exp(), u.sigmoid(),
                u + s.transpose(1, 2), s.softmax(-1), u.softmax(1), torch.where(s > 0, s, 0.0),
                s.cumsum(2), u.sum(2), s.abs().neg(), torch.nn.functional.gelu(u),
                torch.nn.functional.layer_norm(s, (4,)), u.contiguous(), t * s.sum(2, keepdim=True).transpose(1, 2),
                u.masked_fill(u > 0, 1.0), torch.nn.functional.silu(t), (s * 2).to(torch.bfloat16),
                torch.full_like(u, 2.0), torch.ones_like(s), torch.nn.functional.hardtanh(u),
                torch.nn.functional.relu(u), u.clamp(min=0.5), u.pow(2), torch.cat([u, u], 1),
                u.index_put((torch.tensor([0, 2]),), torch.tensor(5.0)), torch.nn.functional.leaky_relu(u),
                u.index_select(1, torch.tensor([3, 0])), torch.nn.functional.elu(u))


class ViewsOps2(torch.nn.Module):
    """Reductions, products, sorts and gathers of transposed and sliced views on dynamic shapes."""

    def forward(self, x, y):
        t = x.transpose(1, 2)
        s = x[:, :, 1:5]
        u = y[:, :, 1:5].transpose(1, 2)
        idx = torch.zeros_like(u[:, :, :2], dtype=torch.long)
        return (u.mean(1), u.var(2), s.amax(1), u.argmax(2), t.sum(), s.prod(2), u.norm(dim=1),
                torch.bmm(u, s), s @ u, t.matmul(x),
                u.sort(2)[0], u.topk(2, 1)[1], torch.gather(u, 2, idx), u.cumsum(1),
                torch.nn.functional.log_softmax(u, 2), torch.nn.functional.normalize(u, dim=1),
                u.unsqueeze(1).expand(-1, 2, -1, -1) * 1, s.flatten(1),
                torch.stack([u, u], 3), u.repeat(1, 2, 1), u.square().rsqrt(), torch.addmm(torch.ones(1), s[0], u[0]),
                u.max(1)[0], u.std(1), u.any(2), (u > 0).all(1), torch.tanh(t).sum(1))


class FlipScans(torch.nn.Module):
    """flip, cumprod (kept whole by the default table) and logsumexp (lowered: amax, the inf mask,
    exp, sum, log), on contiguous inputs and views, int inputs converted to float."""

    def forward(self, x, y):
        u = y[:, :, 1:5].transpose(1, 2)
        n = (x * 3).long()
        return (torch.flip(x, [0, 2]), u.flip(-1), torch.cumprod(x, 1), u.cumprod(2), torch.cumprod(n, 0),
                torch.logsumexp(x, 1), torch.logsumexp(u, [0, 2], keepdim=True), torch.logsumexp(n, -1),
                x.logsumexp(2) + y.flip(1).sum(2))


class MoreOps(torch.nn.Module):
    """movedim (a permute), argsort (sort's indices), glu (slices, sigmoid, mul), eye (aranges
    compared), expm1, max_pool1d / avg_pool1d (their 2-D forms), masked_fill with a number of
    another kind than self (converted to self's type), repeat_interleave with an output_size."""

    def forward(self, x, y):
        u = y[:, :, 1:5].transpose(1, 2)
        n = (x * 3).long()
        return (x.movedim(2, 0), torch.movedim(u, -1, 1), torch.argsort(x, 1), torch.argsort(u, -1, descending=True),
                torch.argsort(x, stable=True, dim=0), torch.nn.functional.glu(x, -1), torch.nn.functional.glu(u, 1),
                torch.eye(4), torch.eye(3, 5, dtype=torch.long), torch.expm1(u),
                torch.nn.functional.max_pool1d(x, 2), torch.nn.functional.max_pool1d(x, 3, 1, 1),
                torch.nn.functional.avg_pool1d(x, 2), torch.nn.functional.avg_pool1d(x, 3, 2, 1, True, False),
                x.masked_fill(x > 0, 2), n.masked_fill(n > 0, 1.5), x @ torch.eye(6),
                torch.repeat_interleave(x, 2, 2, output_size=12))


class MaskIndex(torch.nn.Module):
    """Indexing by bool masks: each mask becomes nonzero()'s coordinates, whose count is data (a fresh
    unbacked size); a whole-tensor mask, a mask over one dim after a slice, a 2-D mask
    over the leading dims, and ops on the results."""

    def forward(self, x, y):
        a = x[x > 0]
        b = y[:, y[0, :, 0] > 0]
        c = x[y.sum(-1) > 0]
        return a * 2, b.sum(1), c + 1, a.sum()


class EinsumInplace(torch.nn.Module):
    """In-place writes into einsum results (LongT5's `scores += position_bias`): functionalization
    writes back through the view chain einsum made out of its bmm and replays it; a 4-D and a
    blocked 5-D contraction, a bias broadcast over the batch, an in-place mul and a masked fill."""

    def forward(self, x, y):
        q, k = x.view(x.shape[0], x.shape[1], 2, 3), y.view(y.shape[0], y.shape[1], 2, 3)
        s = torch.einsum("bqhd,bkhd->bhqk", q, k)
        s += torch.ones(2, 1, 1)
        t = torch.einsum("...qhd,...khd->...hqk", q.unsqueeze(1), k.unsqueeze(1))
        t += 1.0
        t *= 2
        u = torch.einsum("bqd,bkd->bqk", x, y)
        u.masked_fill_(u > 0, 0.5)
        return s.softmax(-1), t, u


class Unfold(torch.nn.Module):
    """F.unfold (aten.im2col; lowered: aranges of block starts and kernel offsets, constant_pad_nd,
    an index, permute, reshape): ConvBERT's [k, 1] kernel with padding over [B, C, L, 1], a 2-D
    kernel with dilation and stride, an unbatched (3-D) input."""

    def forward(self, x, y):
        unfold = torch.nn.functional.unfold
        a = unfold(x.transpose(1, 2).unsqueeze(-1), kernel_size=[3, 1], padding=[1, 0])
        m = y.mean(1)
        b = unfold((m.unsqueeze(-1) * m.unsqueeze(-2)).unsqueeze(1), kernel_size=2, dilation=(1, 2), stride=(2, 1))
        c = unfold(x, kernel_size=(2, 3), padding=1)
        return a.transpose(1, 2) * 2, b, c.sum(-1)


class FloatItemArange(torch.nn.Module):
    """Funnel's relative positions: arange between 0-dim float tensors (their item()s are unbacked
    floats zuf0, zuf1, ...; the length is CeilToInt(FloatTrueDiv(end - start, step)); the step sign
    a deferred runtime assertion), with an int and a float step."""

    def forward(self, x, y):
        pos = torch.arange(0, x.shape[1], 1.0)
        hi, lo = pos[-1] + 2.0, pos[0] - 1.0
        rel = torch.arange(hi, lo, -1, dtype=torch.long)
        rel2 = torch.arange(lo, hi, 2.0)
        return rel * 2, rel2 + 1, rel.sum() + y.sum()


class UnbackedViews(torch.nn.Module):
    """Funnel's _relative_shift_gather: views of a tensor whose last size is the length of an arange
    over unbacked floats (CeilToInt(FloatTrueDiv(zuf0 - zuf1, -1.0))): a reshape that must copy, a
    slice, a reshape that is a view, a slice, then broadcasting against fixed sizes. PyTorch checks
    these with runtime assertions it keeps as axioms (fake_impls._view_unbacked_meta)."""

    def forward(self, x, y):
        b, n, d = x.shape
        pos = torch.arange(0, n, 1.0)
        rel = torch.arange(pos[-1] + n, pos[0] - n, -1, dtype=torch.long)
        m = rel.shape[0]
        att = (x.unsqueeze(-1) * rel.to(x.dtype)).permute(0, 2, 1, 3)  # [b, d, n, m], not contiguous
        att = torch.reshape(att, [b, d, m, n])
        att = att[:, :, 1:, :]
        att = torch.reshape(att, [b, d, n, m - 1])
        att = att[..., :n]
        yt = y.transpose(1, 2)
        return att * torch.tril(torch.ones(n, n)) + yt.unsqueeze(-1) * yt.unsqueeze(-2)


OPS = ["ops_factories", "ops_factories_dynamic", "ops_products", "ops_products_dynamic", "ops_elementwise",
       "ops_elementwise_dynamic", "ops_reductions", "ops_reductions_dynamic", "ops_shapes", "ops_shapes_dynamic",
       "ops_index_add", "ops_index_add_dynamic", "ops_one_hot", "ops_one_hot_dynamic",
       "ops_unlowered", "ops_unlowered_dynamic", "ops_ranges", "ops_ranges_dynamic", "ops_einsum",
       "ops_einsum_dynamic", "ops_repeat_interleave", "ops_repeat_interleave_dynamic", "ops_inplace_acts",
       "ops_inplace_acts_dynamic", "ops_inplace_acts_strided_dynamic",
       "ops_masked_fill_strided_dynamic", "ops_masked_fill_layouts_dynamic",
       "ops_inplace_unary_dynamic", "ops_inplace_binary", "ops_inplace_binary_dynamic",
       "ops_masked_scatter", "ops_masked_scatter_dynamic", "ops_inplace_pow_dynamic", "ops_inplace_triu_dynamic",
       "ops_inplace_floor_divide_dynamic", "ops_masked_fill_broadcast_dynamic",
       "ops_to_copy_views_dynamic", "ops_views_dynamic", "ops_views2_dynamic", "ops_flip_scans",
       "ops_flip_scans_dynamic", "ops_more", "ops_more_dynamic",
       "ops_mask_index", "ops_mask_index_dynamic",
       "ops_einsum_inplace", "ops_einsum_inplace_dynamic",
       "ops_unfold", "ops_unfold_dynamic", "ops_float_item_arange", "ops_float_item_arange_dynamic",
       "ops_unbacked_views", "ops_unbacked_views_dynamic"]


def build_ops(name):
    from torch.export import Dim
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    dyn = name.endswith("_dynamic")
    base = name[:-len("_dynamic")] if dyn else name
    batch = Dim("batch", min=2, max=64)
    note = "operators torch.export.default_decompositions() lowers"
    if base == "ops_factories":
        x = torch.randn(3, 5, generator=g)
        return dict(model=Factories().eval(), args=(x,), kwargs={}, dynamic_shapes=({0: batch},) if dyn else None,
                    family="ops", note=note)
    if base == "ops_products":
        a, b, m = torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g), torch.randn(5, 4, generator=g)
        ds = ({0: batch}, {0: batch}, {0: Dim("rows", min=2, max=64)}) if dyn else None
        return dict(model=Products().eval(), args=(a, b, m), kwargs={}, dynamic_shapes=ds, family="ops", note=note)
    if base == "ops_elementwise":
        x, y = torch.randn(3, 5, generator=g), torch.randn(3, 5, generator=g)
        ds = ({0: batch}, {0: batch}) if dyn else None
        return dict(model=Elementwise().eval(), args=(x, y), kwargs={}, dynamic_shapes=ds, family="ops", note=note)
    # Two 3-D inputs, batch and length dynamic.
    pairs = {"ops_inplace_acts": (InplaceActivations, (3, 7, 4)),
             "ops_inplace_acts_strided": (InplaceActivationsStrided, (3, 7, 4)),
             "ops_masked_fill_strided": (MaskedFillStrided, (3, 5, 6)),
             "ops_masked_fill_layouts": (MaskedFillLayouts, (3, 5, 6)),
             "ops_inplace_unary": (InplaceUnary, (3, 5, 6)),
             "ops_inplace_binary": (InplaceBinary, (3, 5, 6)),
             "ops_masked_scatter": (MaskedScatter, (3, 5, 6)),
             "ops_inplace_pow": (InplacePow, (3, 5, 6)),
             "ops_inplace_triu": (InplaceTriu, (3, 5, 6)),
             "ops_inplace_floor_divide": (InplaceFloorDivide, (3, 5, 6)),
             "ops_masked_fill_broadcast": (MaskedFillBroadcast, (3, 5, 6)),
             "ops_to_copy_views": (ToCopyViews, (3, 5, 6)),
             "ops_views": (ViewsOps, (3, 5, 6)),
             "ops_views2": (ViewsOps2, (3, 5, 6)),
             "ops_flip_scans": (FlipScans, (3, 5, 6)),
             "ops_more": (MoreOps, (3, 5, 6)),
             "ops_mask_index": (MaskIndex, (3, 5, 6)),
             "ops_einsum_inplace": (EinsumInplace, (3, 5, 6)),
             "ops_unfold": (Unfold, (3, 5, 6)),
             "ops_float_item_arange": (FloatItemArange, (3, 5, 6)),
             "ops_unbacked_views": (UnbackedViews, (3, 5, 6))}
    if base in pairs:
        cls, shape = pairs[base]
        x, y = torch.randn(*shape, generator=g), torch.randn(*shape, generator=g)
        length = Dim("length", min=2, max=64)
        ds = ({0: batch, 1: length}, {0: batch, 1: length}) if dyn else None
        return dict(model=cls().eval(), args=(x, y), kwargs={}, dynamic_shapes=ds, family="ops", note=note)
    if base == "ops_reductions":
        x = torch.randn(3, 5, generator=g)
        return dict(model=Reductions().eval(), args=(x,), kwargs={}, dynamic_shapes=({0: batch},) if dyn else None,
                    family="ops", note=note)
    if base == "ops_shapes":
        x = torch.randn(3, 5, 6, generator=g)
        return dict(model=Shapes().eval(), args=(x,), kwargs={}, dynamic_shapes=({0: batch},) if dyn else None,
                    family="ops", note=note)
    if base == "ops_one_hot":
        idx = torch.randint(0, 7, (3, 4), generator=g)
        return dict(model=OneHot().eval(), args=(idx,), kwargs={}, dynamic_shapes=({0: batch},) if dyn else None,
                    family="ops", note=note)
    if base == "ops_unlowered":
        x, y = torch.randn(3, 5, generator=g), torch.randn(3, 5, generator=g)
        ds = ({0: batch}, {0: batch}) if dyn else None
        return dict(model=Unlowered().eval(), args=(x, y), kwargs={}, dynamic_shapes=ds, family="ops",
                    note="operators the default table lowers that fakeexport's decompose keeps (see the class)")
    if base == "ops_ranges":
        x = torch.randn(3, 5, generator=g)
        return dict(model=Ranges().eval(), args=(x,), kwargs={}, dynamic_shapes=({0: batch},) if dyn else None,
                    family="ops", note=note)
    if base == "ops_einsum":
        x, z, s = torch.randn(3, 5, generator=g), torch.randn(5, 4, generator=g), torch.randn(5, 5, generator=g)
        q, k = torch.randn(3, 2, 6, 4, generator=g), torch.randn(3, 2, 7, 4, generator=g)
        ds = ({0: batch}, None, None, {0: batch}, {0: batch}) if dyn else None
        return dict(model=Einsum().eval(), args=(x, z, s, q, k), kwargs={}, dynamic_shapes=ds, family="ops", note=note)
    if base == "ops_repeat_interleave":
        x = torch.randn(3, 5, generator=g)
        r, c = torch.tensor([2, 0, 3]), torch.tensor([1, 3, 0, 2, 1])
        ds = ({0: batch}, {0: batch}, None) if dyn else None
        return dict(model=RepeatInterleave().eval(), args=(x, r, c), kwargs={}, dynamic_shapes=ds, family="ops",
                    note=note)
    if base == "ops_index_add":
        x, src = torch.randn(6, 6, generator=g), torch.randn(5, 6, generator=g)
        idx = torch.tensor([0, 2, 5, 2, 1])
        n = Dim("n", min=3, max=64)
        ds = ({0: Dim("rows", min=6, max=64)}, {0: n}, {0: n}) if dyn else None
        return dict(model=IndexAdd().eval(), args=(x, src, idx), kwargs={}, dynamic_shapes=ds, family="ops",
                    note=note)
    raise KeyError(name)
