! fring.f90 — Fortran test program for the shim (tests/mpi/t_fortran.sh).
!
! Fortran MPI calls reach the shim through MPICH's Fortran bindings, which call the C
! MPI_* functions. What every rank calls (N ranks, R = 10 rounds):
!   ring      R x (rank 0: MPI_SEND right, MPI_RECV left; others: MPI_RECV, MPI_SEND), tag 1
!   exchange  MPI_IRECV left, MPI_ISEND right (tag 2), MPI_WAITALL of the 2
!   coll      MPI_ALLREDUCE (sum), MPI_BCAST (root 0), MPI_BARRIER, MPI_REDUCE (root 0)
! Rank 0 prints the results.
program fring
  use mpi
  implicit none
  integer, parameter :: rounds = 10
  integer :: ierr, rank, nranks, left, right, r
  integer :: token, incoming, sendv, recvv, total, bval, checksum
  integer :: reqs(2)
  integer :: statuses(MPI_STATUS_SIZE, 2)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  left = mod(rank + nranks - 1, nranks)
  right = mod(rank + 1, nranks)

  checksum = 0
  token = 0
  do r = 1, rounds
     if (rank == 0) then
        token = r
        call MPI_SEND(token, 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
        call MPI_RECV(incoming, 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
     else
        call MPI_RECV(incoming, 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        token = incoming + rank
        call MPI_SEND(token, 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
     end if
     checksum = mod(checksum * 31 + incoming, 1000003)
  end do

  sendv = 100 * rank + 7
  recvv = -1
  call MPI_IRECV(recvv, 1, MPI_INTEGER, left, 2, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_ISEND(sendv, 1, MPI_INTEGER, right, 2, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_WAITALL(2, reqs, statuses, ierr)
  checksum = mod(checksum * 31 + recvv, 1000003)

  call MPI_ALLREDUCE(checksum, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  bval = 0
  if (rank == 0) bval = total + 17
  call MPI_BCAST(bval, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  checksum = checksum + bval
  call MPI_REDUCE(checksum, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     print '(A,I0,A,I0)', 'fring: ranks ', nranks, ' checksum ', total
  end if
  call MPI_FINALIZE(ierr)
end program fring
