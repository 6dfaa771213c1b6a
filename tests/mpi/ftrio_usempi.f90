! ftrio_usempi.f90 — the Fortran trio's `use mpi` program (tests/mpi/t_fortran_trio.sh).
!
! The same calls as ftrio_mpifh.f90 (see there), through `use mpi`.
program ftrio_usempi
  use mpi
  implicit none
  integer, parameter :: rounds = 5
  integer :: ierr, rank, nranks, left, right, r, i, idx, sub
  integer :: token, incoming, sendv, recvv, total, bval, checksum
  integer :: reqs(2)
  integer :: st(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2)
  integer, allocatable :: all(:)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  left = mod(rank + nranks - 1, nranks)
  right = mod(rank + 1, nranks)
  allocate(all(nranks))
  checksum = 0
  incoming = 0
  do r = 1, rounds
     if (rank == 0) then
        token = r
        call MPI_SEND(token, 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
        call MPI_RECV(incoming, 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, st, ierr)
     else
        call MPI_RECV(incoming, 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        token = incoming + rank
        call MPI_SEND(token, 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
     end if
     checksum = mod(checksum * 31 + incoming, 1000003)
  end do
  sendv = 100 * rank + 7
  call MPI_IRECV(recvv, 1, MPI_INTEGER, left, 2, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_ISEND(sendv, 1, MPI_INTEGER, right, 2, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_WAITALL(2, reqs, statuses, ierr)
  checksum = mod(checksum * 31 + recvv + statuses(MPI_SOURCE, 1), 1000003)
  call MPI_IRECV(recvv, 1, MPI_INTEGER, left, 3, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_ISEND(sendv, 1, MPI_INTEGER, right, 3, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call MPI_IRECV(recvv, 1, MPI_INTEGER, left, 4, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_ISEND(sendv, 1, MPI_INTEGER, right, 4, MPI_COMM_WORLD, reqs(2), ierr)
  do i = 1, 2
     call MPI_WAITANY(2, reqs, idx, MPI_STATUS_IGNORE, ierr)
  end do
  call MPI_SENDRECV(sendv, 1, MPI_INTEGER, right, 5, recvv, 1, MPI_INTEGER, left, 5, &
                    MPI_COMM_WORLD, st, ierr)
  checksum = mod(checksum * 31 + recvv, 1000003)

  call MPI_ALLREDUCE(checksum, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_ALLREDUCE(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  bval = 0
  if (rank == 0) bval = total + 17
  call MPI_BCAST(bval, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  checksum = checksum + bval
  call MPI_REDUCE(checksum, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_ALLGATHER(rank, 1, MPI_INTEGER, all, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
  call MPI_ALLREDUCE(rank, bval, 1, MPI_INTEGER, MPI_SUM, sub, ierr)
  call MPI_COMM_FREE(sub, ierr)
  if (rank == 0) then
     print '(A,I0,A,I0,A,I0)', 'ftrio: ranks ', nranks, ' checksum ', total, ' gathered ', sum(all)
  end if
  call MPI_FINALIZE(ierr)
end program ftrio_usempi
