! treewalk.f90 — deep call paths in Fortran for the metric tree's invariants (t_analyze_tree.sh,
! mpi_f90): MPI calls 4-5 procedures deep in a module, one subroutine (work) called from two
! callers (phase_a, phase_b), an MPI_ALLREDUCE at the bottom of a recursion (descend), computation
! between the calls, imbalanced over the ranks. Rank 0 prints "done".
module walk
  use mpi
  implicit none
  double precision :: sink
contains
  ! computation for us microseconds
  subroutine spin(us)
    integer, intent(in) :: us
    integer(8) :: t0, t, rate
    integer :: i
    double precision :: x
    x = 0
    call system_clock(t0, rate)
    do
      do i = 1, 200
        x = x + i * 1d-9
      end do
      call system_clock(t)
      if ((t - t0) * 1000000_8 / rate >= us) exit
    end do
    sink = x
  end subroutine spin

  subroutine exchange(rank, nranks, us)
    integer, intent(in) :: rank, nranks, us
    integer :: v, w, ierr
    v = rank
    call spin(us * (rank + 1))
    call MPI_SENDRECV(v, 1, MPI_INTEGER, mod(rank + 1, nranks), 1, w, 1, MPI_INTEGER, &
                      mod(rank + nranks - 1, nranks), 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    sink = w
  end subroutine exchange

  subroutine work(rank, nranks, us)
    integer, intent(in) :: rank, nranks, us
    integer :: ierr
    call spin(us)
    call exchange(rank, nranks, us)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  end subroutine work

  subroutine phase_a(rank, nranks)
    integer, intent(in) :: rank, nranks
    call work(rank, nranks, 2000)
    call spin(500)
  end subroutine phase_a

  subroutine phase_b(rank, nranks)
    integer, intent(in) :: rank, nranks
    call spin(300)
    call work(rank, nranks, 1000)
    sink = 1
  end subroutine phase_b

  recursive function descend(n, rank) result(r)
    integer, intent(in) :: n, rank
    integer :: r, v, ierr
    if (n > 0) then
      call spin(200 * (rank + 1))
      r = descend(n - 1, rank) + 1
    else
      v = rank
      call MPI_ALLREDUCE(v, r, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    end if
  end function descend
end module walk

program treewalk
  use walk
  implicit none
  integer :: ierr, rank, nranks, it, total
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  total = 0
  do it = 1, 3
    call phase_a(rank, nranks)
    call phase_b(rank, nranks)
    total = total + descend(2 + it, rank)
  end do
  call spin(1000)
  call MPI_FINALIZE(ierr)
  if (rank == 0 .and. total > 0) print '(a)', 'done'
end program treewalk
