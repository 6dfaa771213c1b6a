! ftrio_f08.f90 — the Fortran trio's `use mpi_f08` program (tests/mpi/t_fortran_trio.sh).
!
! The same calls as ftrio_mpifh.f90 (see there), through `use mpi_f08`: handles are derived
! types and ierror is left out (optional), except on MPI_SEND and MPI_BARRIER.
program ftrio_f08
  use mpi_f08
  implicit none
  integer, parameter :: rounds = 5
  integer :: ierr, rank, nranks, left, right, r, i, idx
  integer :: token, incoming, sendv, recvv, total, bval, checksum
  type(MPI_Request) :: reqs(2)
  type(MPI_Status) :: st, statuses(2)
  type(MPI_Comm) :: sub
  integer, allocatable :: all(:)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  left = mod(rank + nranks - 1, nranks)
  right = mod(rank + 1, nranks)
  allocate(all(nranks))
  checksum = 0
  incoming = 0
  do r = 1, rounds
     if (rank == 0) then
        token = r
        call MPI_Send(token, 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
        call MPI_Recv(incoming, 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, st)
     else
        call MPI_Recv(incoming, 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        token = incoming + rank
        call MPI_Send(token, 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
     end if
     checksum = mod(checksum * 31 + incoming, 1000003)
  end do
  sendv = 100 * rank + 7
  call MPI_Irecv(recvv, 1, MPI_INTEGER, left, 2, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(sendv, 1, MPI_INTEGER, right, 2, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, statuses)
  checksum = mod(checksum * 31 + recvv + statuses(1)%MPI_SOURCE, 1000003)
  call MPI_Irecv(recvv, 1, MPI_INTEGER, left, 3, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(sendv, 1, MPI_INTEGER, right, 3, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call MPI_Irecv(recvv, 1, MPI_INTEGER, left, 4, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(sendv, 1, MPI_INTEGER, right, 4, MPI_COMM_WORLD, reqs(2))
  do i = 1, 2
     call MPI_Waitany(2, reqs, idx, MPI_STATUS_IGNORE)
  end do
  call MPI_Sendrecv(sendv, 1, MPI_INTEGER, right, 5, recvv, 1, MPI_INTEGER, left, 5, &
                    MPI_COMM_WORLD, st)
  checksum = mod(checksum * 31 + recvv, 1000003)

  call MPI_Allreduce(checksum, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  bval = 0
  if (rank == 0) bval = total + 17
  call MPI_Bcast(bval, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  checksum = checksum + bval
  call MPI_Reduce(checksum, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  call MPI_Allgather(rank, 1, MPI_INTEGER, all, 1, MPI_INTEGER, MPI_COMM_WORLD)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub)
  call MPI_Allreduce(rank, bval, 1, MPI_INTEGER, MPI_SUM, sub)
  call MPI_Comm_free(sub)
  if (rank == 0) then
     print '(A,I0,A,I0,A,I0)', 'ftrio: ranks ', nranks, ' checksum ', total, ' gathered ', sum(all)
  end if
  call MPI_Finalize()
end program ftrio_f08
