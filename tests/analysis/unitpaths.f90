! unitpaths.f90 — an MPI call in a subroutine contained in the program unit, built at -O2 (the
! subroutine is inlined into the program unit) for t_callpath_inline.sh: the path of its
! MPI_Allreduce is main/MAIN__/step (gfortran's main calls the program unit, MAIN__).
program heat
  use mpi
  implicit none
  integer :: ierr, rank
  double precision :: x, y
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  x = rank + 1.0d0
  call step(x, y)
  if (rank == 0) print '(a,f4.1)', 'sum ', y
  call MPI_Finalize(ierr)
contains
  subroutine step(a, b)
    double precision, intent(in) :: a
    double precision, intent(out) :: b
    integer :: ierr2
    call MPI_Allreduce(a, b, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr2)
  end subroutine step
end program heat
