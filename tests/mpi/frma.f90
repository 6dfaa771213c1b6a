! frma.f90 - one-sided MPI from Fortran (mpif.h interface): a window, a fence epoch with a put
! to the right neighbour, a lock epoch with an accumulate, the window freed.
program frma
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, win, right
  integer(kind=MPI_ADDRESS_KIND) :: wsize, disp
  integer :: buf(8), val(2)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  buf = 0
  val = rank
  wsize = 32
  disp = 0
  call MPI_WIN_CREATE(buf, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_WIN_FENCE(0, win, ierr)
  call MPI_PUT(val, 2, MPI_INTEGER, right, disp, 2, MPI_INTEGER, win, ierr)
  call MPI_WIN_FENCE(0, win, ierr)
  call MPI_WIN_LOCK(MPI_LOCK_EXCLUSIVE, right, 0, win, ierr)
  call MPI_ACCUMULATE(val, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, MPI_SUM, win, ierr)
  call MPI_WIN_UNLOCK(right, win, ierr)
  call MPI_WIN_FREE(win, ierr)
  if (rank == 0) print *, 'frma', buf(1)
  call MPI_FINALIZE(ierr)
end program frma
