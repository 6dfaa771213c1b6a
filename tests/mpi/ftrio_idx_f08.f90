! ftrio_idx_f08.f90 — the Fortran trio's index check through `use mpi_f08`: the same calls as
! ftrio_idx.c (see there), whose completions must be recorded on the requests MPI completed.
program ftrio_idx_f08
  use mpi_f08
  implicit none
  integer :: rank, a, b, c, outcount, indices(3)
  integer :: one, two, three
  type(MPI_Request) :: reqs(3), s(3)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  a = 0
  b = 0
  c = 0
  one = 5
  two = 7
  three = 9
  call MPI_Irecv(a, 1, MPI_INTEGER, rank, 1, MPI_COMM_WORLD, reqs(1))
  call MPI_Irecv(b, 1, MPI_INTEGER, rank, 2, MPI_COMM_WORLD, reqs(2))
  call MPI_Irecv(c, 1, MPI_INTEGER, rank, 3, MPI_COMM_WORLD, reqs(3))
  call MPI_Isend(two, 1, MPI_INTEGER, rank, 2, MPI_COMM_WORLD, s(2))
  call MPI_Waitsome(3, reqs, outcount, indices, MPI_STATUSES_IGNORE)
  call MPI_Isend(one, 1, MPI_INTEGER, rank, 1, MPI_COMM_WORLD, s(1))
  call MPI_Isend(three, 1, MPI_INTEGER, rank, 3, MPI_COMM_WORLD, s(3))
  call MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE)
  call MPI_Waitall(3, s, MPI_STATUSES_IGNORE)
  if (rank == 0) print '(A,I0,A,I0)', 'ftrio_idx: ', outcount, ' ', a + 10 * b + 100 * c
  call MPI_Finalize()
end program ftrio_idx_f08
