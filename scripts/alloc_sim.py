#!/usr/bin/env python3
"""Replay one training step of Megatron-LM (commit 8aa4619, March 2021: fp16,
--checkpoint-activations, the local DDP, no sequence parallelism, unfused softmax) through a
model of PyTorch's CUDA caching allocator, and print the allocated and the reserved peak.

A diagnostic for docs/accuracy.md ("What is still wrong", the DLPerf V100 runs): it asks
whether the allocator's block splitting explains why those runs' nvidia-smi peaks exceed the
allocated bytes by far more with tensor parallelism than without. It is not part of the
cost model.

Allocator (c10/cuda/CUDACachingAllocator.cpp of that era): sizes rounded up to 512 bytes;
requests of at most 1 MiB served from 2 MiB segments (small pool), requests under 10 MiB
from 20 MiB segments, larger ones from their own segment rounded up to 2 MiB; a request
takes the smallest cached block of its pool that fits (best fit) and splits it when more
than 1 MiB (small pool: 512 bytes) remains; a freed block merges with free neighbours of
its segment; nothing is returned to the device.

Step trace, tensor by tensor, from megatron/model/transformer.py, mpu/random.py
(CheckpointFunction), mpu/cross_entropy.py, model/distributed.py and
optimizer/optimizer.py of that commit: fp16 weights and fp32 main weights at start-up; per
step the embedding, each layer's forward under no_grad keeping only its output (the next
checkpoint), the logits and their fp32 copy, then per layer from the last the recomputed
forward (its saved tensors: layer-norm outputs, QKV, softmax output, 1-byte dropout mask,
dropout output, context, the jit bias-dropout-add masks in fp16, FC1 and GeLU outputs)
and its backward, fp16 gradients created at first use, the local DDP's flattened copy of
all gradients (data parallel only), at the first step the fp16 optimizer's fp32 main
gradients and Adam's two moments, and zero_grad freeing the fp16 gradients.

--nccl-lag K models one more mechanism: a block written by a tensor-parallel collective
(the row-parallel outputs in forward, the column-parallel input gradients in backward) is
used on NCCL's stream, and the allocator hands it out again only once that stream has
passed the free (recordStream); K is how many layers the host runs ahead of the device
before that happens. 0 (the default) leaves it out.

Usage: scripts/alloc_sim.py [--steps N] [--nccl-lag K] [--context GIB] CASE.yaml...
With pp > 1 it replays the first stage (embedding and its layers) under 1F1B. Exit status
0, or 2 on a usage or file error.
"""
import bisect
import sys

MIN_BLOCK = 512
SMALL = 1 << 20
SMALL_BUFFER = 2 << 20
LARGE_BUFFER = 20 << 20
MIN_LARGE_ALLOC = 10 << 20
ROUND_LARGE = 2 << 20
GIB = float(1 << 30)


class CachingAllocator:
    """Best-fit, splitting, merging caching allocator; tracks allocated and reserved peaks."""

    def __init__(self):
        self.free = {True: [], False: []}  # small pool? -> sorted [(size, addr)]
        self.blocks = {}                   # addr -> [size, small, used, prev, next]
        self.reserved = self.allocated = self.peak_reserved = self.peak_allocated = 0
        self.next_segment = 0

    def _unfree(self, small, size, addr):
        pool = self.free[small]
        i = bisect.bisect_left(pool, (size, addr))
        pool.pop(i)

    def malloc(self, n):
        n = max(MIN_BLOCK, -(-n // MIN_BLOCK) * MIN_BLOCK)
        small = n <= SMALL
        pool = self.free[small]
        i = bisect.bisect_left(pool, (n, -1))
        if i < len(pool):
            size, addr = pool.pop(i)
        else:
            if small:
                size = SMALL_BUFFER
            elif n < MIN_LARGE_ALLOC:
                size = LARGE_BUFFER
            else:
                size = -(-n // ROUND_LARGE) * ROUND_LARGE
            addr = self.next_segment
            self.next_segment += size + (1 << 44)  # segments are never adjacent
            self.blocks[addr] = [size, small, False, None, None]
            self.reserved += size
        b = self.blocks[addr]
        rest = size - n
        if rest >= MIN_BLOCK if small else rest > SMALL:
            tail = addr + n
            self.blocks[tail] = [rest, small, False, addr, b[4]]
            if b[4] is not None:
                self.blocks[b[4]][3] = tail
            b[0], b[4] = n, tail
            bisect.insort(pool, (rest, tail))
        b[2] = True
        self.allocated += b[0]
        self.peak_allocated = max(self.peak_allocated, self.allocated)
        self.peak_reserved = max(self.peak_reserved, self.reserved)
        return addr

    def release(self, addr):
        b = self.blocks[addr]
        b[2] = False
        self.allocated -= b[0]
        small = b[1]
        nxt = b[4]
        if nxt is not None and not self.blocks[nxt][2]:
            nb = self.blocks.pop(nxt)
            self._unfree(small, nb[0], nxt)
            b[0] += nb[0]
            b[4] = nb[4]
            if nb[4] is not None:
                self.blocks[nb[4]][3] = addr
        prv = b[3]
        if prv is not None and not self.blocks[prv][2]:
            pb = self.blocks[prv]
            self._unfree(small, pb[0], prv)
            pb[0] += b[0]
            pb[4] = b[4]
            if b[4] is not None:
                self.blocks[b[4]][3] = prv
            del self.blocks[addr]
            addr, b = prv, pb
        bisect.insort(self.free[small], (b[0], addr))


class Step:
    """Named live tensors over one allocator, with NCCL-held blocks released after a lag."""

    COLLECTIVE = {'dense', 'fc2', 'g_ln2', 'g_ln1'}  # written by a TP all-reduce

    def __init__(self, tp, lag):
        self.a = CachingAllocator()
        self.live = {}
        self.tp, self.lag, self.held = tp, lag, []

    def new(self, name, n):
        self.live[name] = self.a.malloc(int(n))

    def drop(self, *names):
        for name in names:
            addr = self.live.pop(name)
            if self.tp > 1 and self.lag > 0 and name in self.COLLECTIVE:
                # freed by the program (no longer allocated) but not reusable yet
                self.a.allocated -= self.a.blocks[addr][0]
                self.held.append([self.lag, addr])
            else:
                self.a.release(addr)

    def layer_done(self, flush=False):
        for h in self.held:
            h[0] -= 1
        while self.held and (flush or self.held[0][0] <= 0):
            addr = self.held.pop(0)[1]
            self.a.allocated += self.a.blocks[addr][0]
            self.a.release(addr)


def layer_params(h, t):
    """Parameter tensors (elements) of one layer on one TP rank."""
    return [3 * h * h // t, 3 * h // t, h * h // t, h, 4 * h * h // t, 4 * h // t,
            4 * h * h // t, h, h, h, h, h]


def forward_layer(k, C, Ct, S, x_next):
    """A checkpointed layer's forward under no_grad: only its output stays."""
    k.new('ln1', C); k.new('qkv', 3 * Ct)
    k.new('mr', S); k.new('scores', S); k.drop('mr'); k.new('probs', S)
    k.new('drop', S); k.new('dmask', S // 2); k.drop('dmask', 'probs')
    k.new('ctx', Ct); k.new('ctx2', Ct); k.drop('ctx')
    k.new('dense', C); k.drop('scores', 'drop', 'qkv', 'ctx2')
    k.new('t1', C); k.new('o1', C); k.new('m1', C // 2); k.drop('m1', 't1')
    k.new('res', C); k.drop('o1', 'dense')
    k.new('ln2', C); k.drop('ln1'); k.new('fc1', 4 * Ct); k.new('gelu', 4 * Ct); k.drop('fc1')
    k.new('fc2', C); k.drop('gelu')
    k.new('t2', C); k.new('o2', C); k.new('m2', C // 2); k.drop('m2', 't2')
    k.new(x_next, C); k.drop('o2', 'fc2', 'res', 'ln2')


def grads_at_first_use(k, l, idx, lp):
    for i in idx:
        if ('g', (l, i)) not in k.live:
            k.new(('g', (l, i)), 2 * lp[i])


def backward_layer(k, l, C, Ct, S, lp, x_in):
    """Recompute layer l with grad, then run its backward; frees its checkpoint x_in."""
    k.new('ln1', C); k.new('qkv', 3 * Ct)
    k.new('mr', S); k.new('scores', S); k.drop('mr'); k.new('probs', S)
    k.new('drop', S); k.new('dmask', S // 2); k.new('ctx', Ct); k.new('ctx2', Ct)
    k.drop('ctx', 'scores')
    k.new('dense', C); k.new('t1', C); k.new('o1', C); k.new('m1', C); k.drop('t1')
    k.new('res', C); k.drop('o1', 'dense')
    k.new('ln2', C); k.new('fc1', 4 * Ct); k.new('gelu', 4 * Ct); k.new('fc2', C)
    k.new('t2', C); k.new('o2', C); k.new('m2', C); k.drop('t2'); k.new('out', C)
    k.drop('o2', 'fc2', 'out')
    k.new('g_o2', C); k.drop('m2'); k.new('g_gelu', 4 * Ct)
    grads_at_first_use(k, l, (6, 7), lp)
    k.drop('gelu'); k.new('g_fc1', 4 * Ct); k.drop('g_gelu', 'fc1'); k.new('g_ln2', C)
    grads_at_first_use(k, l, (4, 5), lp)
    k.drop('g_fc1', 'ln2'); k.new('g_res', C); k.drop('g_ln2', 'res', 'g_o2')
    k.new('g_o1', C); k.drop('m1'); k.new('g_ctx2', Ct)
    grads_at_first_use(k, l, (2, 3), lp)
    k.drop('g_o1', 'ctx2'); k.new('g_drop', S); k.new('g_v', Ct); k.drop('g_ctx2', 'drop')
    k.new('g_probs', S); k.drop('g_drop', 'dmask', 'probs')  # softmax backward in place
    k.new('g_q', Ct); k.new('g_k', Ct); k.drop('g_probs')
    k.new('g_qkv', 3 * Ct); k.drop('g_q', 'g_k', 'g_v', 'qkv'); k.new('g_ln1', C)
    grads_at_first_use(k, l, (0, 1), lp)
    k.drop('g_qkv', 'ln1'); k.new('g_x', C); k.drop('g_ln1', 'g_res', 'gy')
    k.live['gy'] = k.live.pop('g_x')
    k.drop(x_in)


def simulate(h, L, a, t, b, s, vocab, dp, pp=1, m=1, steps=3, lag=0):
    """Peak allocated and reserved GiB of the first pipeline stage over `steps` steps of m
    micro-batches under 1F1B (Megatron's forward_backward_pipelining for pp > 1, one
    forward and backward after the other for pp = 1)."""
    k = Step(t, lag)
    C = 2 * s * b * h
    Ct, S = C // t, 2 * b * (a // t) * s * s
    vp = -(-vocab // (128 * t)) * 128 * t  # --make-vocab-size-divisible-by 128, times TP
    vt = vp // t
    logits = s * b * vt
    ls = L // pp
    lp = layer_params(h, t)
    params = [(l, i, n) for l in range(ls) for i, n in enumerate(lp)]
    ends = [vt * h, s * h] + ([h, h] if pp == 1 else [])  # embeddings; final norm if last
    params += [('e', i, n) for i, n in enumerate(ends)]
    for p in params:
        k.new(('w', p), 2 * p[2])
    for p in params:
        k.new(('main', p), 4 * p[2])

    def forward(j):
        k.new(('x', j, -1), C)
        for l in range(ls):
            k.layer_done()
            forward_layer(k, C, Ct, S, ('x', j, l))
        if pp == 1:
            k.new('lnf', C); k.new('lg16', 2 * logits); k.new('lg32', 4 * logits)
            k.drop('lg16')

    def backward(j):
        if pp == 1:
            k.new('g_lg16', 2 * logits); k.drop('lg32')
            if ('g', ('e', 0)) not in k.live:
                k.new(('g', ('e', 0)), 2 * vt * h)
            k.new('g_lnf', C); k.drop('g_lg16'); k.new('gy', C); k.drop('g_lnf', 'lnf')
        else:
            k.new('gy', C)  # the gradient received from the next stage
        k.drop(('x', j, ls - 1))  # the stage output, kept for its backward
        for l in reversed(range(ls)):
            k.layer_done()
            backward_layer(k, l, C, Ct, S, lp, ('x', j, l - 1))
        k.drop('gy')

    warm = min(pp - 1, m)
    for step in range(steps):
        for j in range(warm):
            forward(j)
        for i in range(m - warm):
            forward(warm + i)
            backward(i)
        for i in range(m - warm, m):
            backward(i)
        k.layer_done(flush=True)
        for p in params:
            if ('g', p) not in k.live:
                k.new(('g', p), 2 * p[2])
        if dp > 1:
            k.new('flat', 2 * sum(p[2] for p in params))
            k.drop('flat')
        if step == 0:
            for p in params:
                k.new(('main_grad', p), 4 * p[2])
            for p in params:
                k.new(('exp_avg', p), 4 * p[2])
                k.new(('exp_avg_sq', p), 4 * p[2])
        for p in params:
            k.drop(('g', p))
    return k.a.peak_allocated / GIB, k.a.peak_reserved / GIB


def case_args(path):
    import yaml
    with open(path) as f:
        c = yaml.safe_load(f)
    m, st = c['model'], c['strategy']
    pp = st.get('pp', 1)
    mb = st['global_batch'] // (st['micro_batch'] * st['dp'])
    return (m['hidden_size'], m['num_hidden_layers'], m['num_attention_heads'], st['tp'],
            st['micro_batch'], st['seq_length'], m['vocab_size'], st['dp'], pp, mb), c


def main(argv):
    steps, lag, ctx, files = 3, 0, 0.6, []
    it = iter(argv)
    try:
        for arg in it:
            if arg == '--steps':
                steps = int(next(it))
            elif arg == '--nccl-lag':
                lag = int(next(it))
            elif arg == '--context':
                ctx = float(next(it))
            elif arg.startswith('-'):
                raise ValueError(arg)
            else:
                files.append(arg)
    except (StopIteration, ValueError):
        print(__doc__.split('Usage: ')[1].split('\n')[0], file=sys.stderr)
        return 2
    if not files or steps < 1 or lag < 0:
        print('usage: scripts/alloc_sim.py [--steps N] [--nccl-lag K] [--context GIB] CASE.yaml...',
              file=sys.stderr)
        return 2
    cases = []
    for path in files:
        try:
            cases.append(case_args(path))
        except (OSError, KeyError, TypeError, ImportError) as e:
            print(f'alloc_sim: {path}: {e}', file=sys.stderr)
            return 2
    print(f"{'case':40s} {'alloc':>7s} {'reserved':>8s} {'reserve':>8s} {'+context':>8s} {'measured':>8s}")
    for args, c in cases:
        pa, pr = simulate(*args, steps=steps, lag=lag)
        meas = c.get('expect', {}).get('peak_mem_gib', 0)
        print(f"{c['id']:40s} {pa:7.2f} {pr:8.2f} {100 * (pr / pa - 1):7.0f}% {pr + ctx:8.2f} {meas:8.2f}")
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
