"""Ranks joined through the user's own store:
``store_program.py OUT PORT N KIND[,KIND...] ROUNDS``.

``mp.Process`` starts N ranks; for each KIND (``tcp``: a TCPStore on PORT+i hosted by rank 0,
``file``: a FileStore in OUT, ``prefix``: a PrefixStore over a TCPStore) each rank makes the
store, writes a key of its own, joins with ``init_process_group("gloo", store=, rank=,
world_size=)``, runs a few collectives, uses the store for its own keys while the group is up,
leaves the group; ROUNDS times through the same store (PyTorch's gloo fails a second round
now and then: it rewrites the same keys, and a rank can read the last round's address)."""

import datetime
import os
import sys

from rank_io import Recorder, library

OUT, PORT, N, KINDS, ROUNDS = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split(","), int(sys.argv[5])  # fmt: skip
TIMEOUT = datetime.timedelta(seconds=20)


def make_store(dist, kind: str, i: int, rank: int):
    if kind == "file":
        return dist.FileStore(os.path.join(OUT, f"store{i}"), N)
    tcp = dist.TCPStore("127.0.0.1", PORT + i, N, is_master=rank == 0, timeout=TIMEOUT)
    return dist.PrefixStore("job", tcp) if kind == "prefix" else tcp


def run(rank: int) -> None:
    torch = library()
    dist = torch.distributed
    rec = Recorder(rank)
    for i, kind in enumerate(KINDS):
        store = make_store(dist, kind, i, rank)
        store.set(f"user{rank}", f"hello from {rank}")
        store.set("0/0", "a key that looks like the group's")
        for round in range(ROUNDS):
            name = f"{kind} {round}"
            dist.init_process_group("gloo", store=store, rank=rank, world_size=N, timeout=TIMEOUT)
            t = torch.arange(3.0) * (rank + 1)
            dist.all_reduce(t)
            gathered = [torch.zeros(1) for _ in range(N)]
            dist.all_gather(gathered, torch.full((1,), float(rank)))
            total = store.add(f"count{round}", 1)
            dist.barrier()
            peer = (rank + 1) % N
            store.wait([f"user{peer}"], datetime.timedelta(seconds=10))
            rec[name] = [
                dist.get_rank(), dist.get_world_size(), dist.get_backend(), dist.is_initialized(),
                t, gathered, 1 <= total <= N, store.get(f"count{round}").decode(), store.get(f"user{peer}").decode(),
                store.get("0/0").decode(), store.check([f"user{rank}", "0/0"]),
            ]  # fmt: skip
            dist.destroy_process_group()
            rec[name + " initialized after destroy"] = dist.is_initialized()
        del store
    rec.save()


if __name__ == "__main__":
    mp = library().multiprocessing
    procs = [mp.Process(target=run, args=(rank,)) for rank in range(N)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    sys.exit(max(p.exitcode for p in procs))
