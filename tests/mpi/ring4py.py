"""ring4py.py — an mpi4py program for t_mpi4py.sh (Debian's python3-mpi4py, on Open MPI): a ring of
blocking sends (ROUNDS, 8 bytes, tag 1), one of nonblocking ones (Isend/Irecv + Waitall, 16 bytes,
tag 2), then MPI_Bcast (root 0), MPI_Allreduce, MPI_Reduce (root 1), MPI_Barrier; rank 0 prints
the sums. tracecheck.py's "mpi4py" model holds the exact events: keep the two in step."""
import sys
from mpi4py import MPI

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
right, left = (rank + 1) % size, (rank - 1) % size
total = 0
out, inp = bytearray(8), bytearray(8)
for i in range(rounds):
    out[:] = (rank * 100 + i).to_bytes(8, "little")
    if rank % 2 == 0:
        comm.Send([out, MPI.BYTE], dest=right, tag=1)
        comm.Recv([inp, MPI.BYTE], source=left, tag=1)
    else:
        comm.Recv([inp, MPI.BYTE], source=left, tag=1)
        comm.Send([out, MPI.BYTE], dest=right, tag=1)
    total += int.from_bytes(inp, "little")
big_out, big_in = bytearray(rank.to_bytes(16, "little")), bytearray(16)
reqs = [comm.Irecv([big_in, MPI.BYTE], source=left, tag=2), comm.Isend([big_out, MPI.BYTE], dest=right, tag=2)]
MPI.Request.Waitall(reqs)
total += int.from_bytes(big_in, "little")
b = bytearray(b"ring4py!" if rank == 0 else bytes(8))
comm.Bcast([b, MPI.BYTE], root=0)
s = bytearray(total.to_bytes(8, "little"))
r1, r2 = bytearray(8), bytearray(8)
comm.Allreduce([s, MPI.LONG], [r1, MPI.LONG], op=MPI.SUM)
comm.Reduce([s, MPI.LONG], [r2, MPI.LONG], op=MPI.MAX, root=1 % size)
comm.Barrier()
if rank == 0:
    print("ring4py: %d ranks, %d rounds, %s, sum %d" % (size, rounds, b.decode(), int.from_bytes(r1, "little")))
