#!/usr/bin/env python3
"""Writes a large `gpusat collide` scene: the reference distribution's kind of
crowd (random 8-gons of radius 0.5 to 1.5, bodies in [-1, 1]^2, random
angles) with N random candidate pairs, for measuring the command's time and
memory on big batches.

    python3 scripts/big_scene.py 3000000 > scene3m.json
"""
import json
import math
import random
import sys


def polygon(rng, count, radius):
    angles = sorted(rng.uniform(0.0, 2.0 * math.pi) for _ in range(count))
    return [[round(radius * math.cos(a), 6), round(radius * math.sin(a), 6)] for a in angles]


def main():
    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 3_000_000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rng = random.Random(seed)
    shapes = [{"polygon": polygon(rng, 8, rng.uniform(0.5, 1.5))} for _ in range(256)]
    bodies = [
        {
            "shape": rng.randrange(len(shapes)),
            "position": [round(rng.uniform(-1, 1), 5), round(rng.uniform(-1, 1), 5)],
            "angle": round(rng.uniform(-math.pi, math.pi), 5),
        }
        for _ in range(4096)
    ]
    out = sys.stdout
    out.write('{"shapes": ')
    json.dump(shapes, out, separators=(",", ":"))
    out.write(', "bodies": ')
    json.dump(bodies, out, separators=(",", ":"))
    out.write(', "pairs": [')
    n = len(bodies)
    for i in range(pairs):
        a = rng.randrange(n)
        b = rng.randrange(n - 1)
        if b >= a:
            b += 1
        out.write(("," if i else "") + f"[{a},{b}]")
    out.write("]}\n")


if __name__ == "__main__":
    main()
