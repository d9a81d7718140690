"""The API a DDP/FSDP-style training script uses on ranks it starts itself:
``training_api_program.py OUT PORT N``. ``mp.Process`` starts N ranks joined over tcp://; each
records subgroup queries, the tensor-shaped collectives, point-to-point with handles,
barriers, object collectives and the errors of misuse, then leaves and joins again."""

import datetime
import sys

from rank_io import Recorder, library

OUT, PORT, N = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
TIMEOUT = datetime.timedelta(seconds=20)


def run(rank: int) -> None:
    torch = library()
    dist = torch.distributed
    rec = Recorder(rank)

    def attempt(name, fn):
        try:
            rec[name] = fn()
        except Exception as e:  # noqa: BLE001  the error's type and text are compared
            rec[name] = e

    rec["before init"] = [dist.is_initialized(), dist.group.WORLD is None]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{PORT}", rank=rank, world_size=N, timeout=TIMEOUT)  # fmt: skip
    world = dist.group.WORLD
    rec["world"] = [world is dist.GroupMember.WORLD, world.rank(), world.size(), dist.get_process_group_ranks(world)]  # fmt: skip

    # subgroups: the last two ranks (rank 0 is outside), listed out of order
    tail = dist.new_group([N - 1, N - 2])
    member = rank >= N - 2
    rec["subgroup member"] = [tail != dist.GroupMember.NON_GROUP_MEMBER, member]
    attempt("get_rank(sub)", lambda: dist.get_rank(tail))
    attempt("get_world_size(sub)", lambda: dist.get_world_size(tail))
    if member:
        rec["sub ranks"] = [dist.get_process_group_ranks(tail), dist.get_group_rank(tail, N - 1), dist.get_global_rank(tail, 0), tail.rank(), tail.size()]  # fmt: skip
        attempt("get_group_rank outside", lambda: dist.get_group_rank(tail, 0))
        attempt("get_global_rank out of range", lambda: dist.get_global_rank(tail, 5))
        t = torch.full((2,), float(rank))
        dist.all_reduce(t, group=tail)
        rec["sub all_reduce"] = t
        out = torch.zeros(4)
        dist.all_gather_into_tensor(out, torch.full((2,), float(rank)), group=tail)
        rec["sub all_gather_into_tensor"] = out
        b = torch.full((1,), float(rank))
        dist.broadcast(b, src=N - 1, group=tail)
        rec["sub broadcast global src"] = b
        b = torch.full((1,), float(rank))
        dist.broadcast(b, group=tail, group_src=1)
        rec["sub broadcast group_src"] = b
        objs = [None, None]
        dist.all_gather_object(objs, {"r": rank}, group=tail)
        rec["sub all_gather_object"] = objs
        objs = [rank, "x"]
        dist.broadcast_object_list(objs, group=tail, group_src=1)
        go = [None, None] if dist.get_rank(tail) == 0 else None
        dist.gather_object(("g", rank), go, group=tail, group_dst=0)
        so = [None]
        dist.scatter_object_list(so, ["a", "b"] if dist.get_rank(tail) == 0 else None, group=tail, group_src=0)  # fmt: skip
        rec["sub object collectives group ranks"] = [objs, go, so]
        objs = [None]
        dist.broadcast_object_list(objs if rank != N - 1 else [rank], src=N - 1, group=tail)
        rec["sub broadcast_object_list global src"] = objs if rank != N - 1 else None
        attempt("sub gather_object global dst", lambda: dist.gather_object(rank, [None, None] if rank == N - 2 else None, dst=N - 2, group=tail))  # fmt: skip
        peer = 1 - dist.get_rank(tail)
        got = torch.zeros(2)
        ws = [dist.isend(torch.full((2,), float(rank)), group=tail, group_dst=peer), dist.irecv(got, group=tail, group_src=peer)]  # fmt: skip
        for h in ws:
            h.wait()
        rec["sub isend/irecv group ranks"] = got
        got = torch.zeros(1)
        ops = [dist.P2POp(dist.isend, torch.full((1,), float(rank)), group=tail, group_peer=peer), dist.P2POp(dist.irecv, got, group=tail, group_peer=peer)]  # fmt: skip
        for h in dist.batch_isend_irecv(ops):
            h.wait()
        rec["sub batch_isend_irecv group_peer"] = got
        rec["sub barrier"] = dist.barrier(group=tail)
    else:
        rec["outside all_reduce"] = dist.all_reduce(torch.ones(1), group=tail)
        rec["outside async all_reduce"] = dist.all_reduce(torch.ones(1), group=tail, async_op=True)
        rec["outside barrier"] = dist.barrier(group=tail)
        rec["outside all_gather_object"] = dist.all_gather_object([None, None], rank, group=tail)
    attempt("get_backend(sub)", lambda: dist.get_backend(tail))
    attempt("get_process_group_ranks(sub)", lambda: dist.get_process_group_ranks(tail))
    attempt("new_group out of range", lambda: dist.new_group([0, N]))
    attempt("new_group negative", lambda: dist.new_group([-1]))
    attempt("new_group too many", lambda: dist.new_group(list(range(N)) + [0]))
    attempt("get_group_rank WORLD unchecked", lambda: dist.get_group_rank(dist.group.WORLD, N + 3))
    attempt("get_global_rank WORLD unchecked", lambda: dist.get_global_rank(dist.group.WORLD, -1))
    attempt("get_group_rank from every rank", lambda: dist.get_group_rank(tail, N - 1))
    attempt("get_global_rank from every rank", lambda: dist.get_global_rank(tail, 0))
    attempt("get_group_rank WORLD", lambda: dist.get_group_rank(dist.group.WORLD, N - 1))
    attempt("get_global_rank WORLD", lambda: dist.get_global_rank(dist.group.WORLD, 1))
    if member:
        dist.destroy_process_group(tail)
        attempt("get_rank destroyed", lambda: dist.get_rank(tail))
        attempt("get_backend destroyed", lambda: dist.get_backend(tail))
        attempt("get_process_group_ranks destroyed", lambda: dist.get_process_group_ranks(tail))
        attempt("get_group_rank destroyed", lambda: dist.get_group_rank(tail, rank))
        attempt("all_reduce destroyed", lambda: dist.all_reduce(torch.ones(1), group=tail))
        attempt("destroy destroyed", lambda: dist.destroy_process_group(tail))
    attempt("destroy NON_GROUP_MEMBER", lambda: dist.destroy_process_group(dist.GroupMember.NON_GROUP_MEMBER))  # fmt: skip
    # tensor collectives
    out = torch.zeros(N * 2)
    dist.all_gather_into_tensor(out, torch.full((2,), float(rank)))
    rec["all_gather_into_tensor"] = out
    attempt("all_gather_into_tensor stacked", lambda: dist.all_gather_into_tensor(torch.zeros(N, 2), torch.ones(2)))  # fmt: skip
    rs = torch.zeros(2)
    dist.reduce_scatter_tensor(rs, torch.arange(2.0 * N) * (rank + 1))
    rec["reduce_scatter_tensor"] = rs
    ins = [rank + 1] * N
    outs = [r + 1 for r in range(N)]
    a2a = torch.zeros(sum(outs))
    dist.all_to_all_single(a2a, torch.arange(float(sum(ins))) + 10 * rank, outs, ins)
    rec["all_to_all_single splits"] = a2a
    attempt("all_gather_into_tensor wrong size", lambda: dist.all_gather_into_tensor(torch.zeros(N + 1), torch.ones(1)))  # fmt: skip
    attempt("reduce_scatter_tensor wrong size", lambda: dist.reduce_scatter_tensor(torch.zeros(2), torch.ones(2 * N + 1)))  # fmt: skip
    # async handles
    w = dist.all_reduce(torch.ones(3) * rank, async_op=True)
    w.wait()
    rec["async all_reduce"] = [w.is_completed(), w.is_success(), w.result()]
    fut = dist.all_reduce(torch.ones(2), async_op=True).get_future()
    rec["async future"] = fut.wait()
    # point to point with handles
    nxt, prv = (rank + 1) % N, (rank - 1) % N
    recv = torch.zeros(3)
    if rank % 2 == 0:
        ws = [dist.isend(torch.arange(3.0) + rank, dst=nxt), dist.irecv(recv, src=prv)]
    else:
        ws = [dist.irecv(recv, src=prv), dist.isend(torch.arange(3.0) + rank, dst=nxt)]
    for h in ws:
        h.wait()
    rec["isend/irecv ring"] = recv
    got = torch.zeros(2)
    ops = [dist.P2POp(dist.isend, torch.full((2,), float(rank)), nxt), dist.P2POp(dist.irecv, got, prv)]  # fmt: skip
    for h in dist.batch_isend_irecv(ops):
        h.wait()
    rec["batch_isend_irecv"] = got
    attempt("P2POp bad op", lambda: dist.P2POp(dist.all_reduce, torch.ones(1), 0))
    # objects point to point: rank 0 sends to every other rank, which answers (any source)
    if rank == 0:
        for peer in range(1, N):
            dist.send_object_list([peer, {"to": peer}, "x" * peer], dst=peer)
        answers = []
        for peer in range(1, N):
            box = [None]
            sender = dist.recv_object_list(box, src=peer)
            answers.append([sender, box[0]])
        rec["send/recv_object_list"] = answers
        attempt("recv_object_list without src", lambda: dist.recv_object_list([None]))
        attempt(
            "send_object_list both dsts", lambda: dist.send_object_list([1], dst=1, group_dst=1)
        )
    else:
        box = [None, None, None]
        rec["send/recv_object_list"] = [dist.recv_object_list(box, src=0), box]
        dist.send_object_list([("back", rank)], dst=0)
    # subgroups made in bulk, and their errors
    mine, groups = dist.new_subgroups_by_enumeration([[0], list(range(1, N))])
    rec["new_subgroups_by_enumeration"] = [len(groups), dist.get_process_group_ranks(mine), dist.get_rank(mine)]  # fmt: skip
    t = torch.ones(1)
    dist.all_reduce(t, group=mine)
    rec["all_reduce on enumerated subgroup"] = t
    mine, groups = dist.new_subgroups(group_size=1)
    rec["new_subgroups(1)"] = [len(groups), dist.get_process_group_ranks(mine), dist.get_world_size(mine)]  # fmt: skip
    attempt("new_subgroups default size", lambda: dist.new_subgroups())
    attempt("new_subgroups zero", lambda: dist.new_subgroups(group_size=0))
    attempt("new_subgroups too big", lambda: dist.new_subgroups(group_size=N + 1))
    attempt("new_subgroups not dividing", lambda: dist.new_subgroups(group_size=2))
    attempt("new_subgroups_by_enumeration empty", lambda: dist.new_subgroups_by_enumeration([]))
    attempt("new_subgroups_by_enumeration overlap", lambda: dist.new_subgroups_by_enumeration([[0, 1], [1, 2]]))  # fmt: skip
    rec["node local rank"] = dist.get_node_local_rank(fallback_rank=rank)
    attempt("node local rank without fallback", lambda: dist.get_node_local_rank())
    rec["default_pg_timeout"] = str(dist.default_pg_timeout)
    # barriers
    rec["barrier"] = dist.barrier()
    rec["barrier async"] = dist.barrier(async_op=True).wait()
    rec["monitored_barrier"] = dist.monitored_barrier(timeout=datetime.timedelta(seconds=10))
    rec["monitored_barrier all"] = dist.monitored_barrier(timeout=datetime.timedelta(seconds=10), wait_all_ranks=True)  # fmt: skip
    # objects
    bol = [rank, {"x": [1, 2]}] if rank == 1 else [None, None]
    dist.broadcast_object_list(bol, src=1)
    go = [None] * N if rank == 0 else None
    dist.gather_object({"rank": rank}, go, dst=0)
    so = [None]
    dist.scatter_object_list(so, [f"to {r}" for r in range(N)] if rank == N - 1 else None, src=N - 1)  # fmt: skip
    rec["objects"] = [bol, go, so]
    dist.barrier()
    dist.destroy_process_group()
    attempt("get_world_size after destroy", lambda: dist.get_world_size())
    attempt("get_backend after destroy", lambda: dist.get_backend())
    rec["initialized after destroy"] = dist.is_initialized()
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{PORT + 1}", rank=rank, world_size=N, timeout=TIMEOUT)  # fmt: skip
    t = torch.ones(1) * rank
    dist.all_reduce(t)
    rec["after re-init"] = [t, dist.get_world_size(), dist.get_backend()]
    dist.destroy_process_group()
    rec.save()


if __name__ == "__main__":
    mp = library().multiprocessing
    procs = [mp.Process(target=run, args=(rank,)) for rank in range(N)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    sys.exit(max(p.exitcode for p in procs))
