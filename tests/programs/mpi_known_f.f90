! mpi_known_f.f90: Fortran MPI calls with known volumes, on 4 ranks.
! Each rank sends 10 doubles to rank+1 (MPI_SEND, 3 times: 240 B), 6
! integers to rank+2 (MPI_ISEND: 24 B), 2 doubles to rank+3 and receives
! as many from rank+1 (MPI_SENDRECV: 16 B); rank 0 broadcasts 5 integers
! (5*4*3 B); all allreduce 4 doubles twice (2 * 2*32*3 B), reduce 1
! double to rank 1 (8*3 B) and meet at one barrier.
program mpi_known_f
  use mpi
  implicit none
  integer :: ierr, me, n, k, req, status(MPI_STATUS_SIZE)
  double precision :: a(10), b(10), s(4), t(4), x(2), y(2), r, q
  integer :: iv(6), jv(6), bc(5)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, n, ierr)
  a = me
  do k = 1, 3
    if (mod(me, 2) == 0) then
      call MPI_SEND(a, 10, MPI_DOUBLE_PRECISION, mod(me + 1, n), k, MPI_COMM_WORLD, ierr)
      call MPI_RECV(b, 10, MPI_DOUBLE_PRECISION, mod(me + n - 1, n), k, MPI_COMM_WORLD, &
                    status, ierr)
    else
      call MPI_RECV(b, 10, MPI_DOUBLE_PRECISION, mod(me + n - 1, n), k, MPI_COMM_WORLD, &
                    status, ierr)
      call MPI_SEND(a, 10, MPI_DOUBLE_PRECISION, mod(me + 1, n), k, MPI_COMM_WORLD, ierr)
    end if
  end do
  iv = me
  call MPI_IRECV(jv, 6, MPI_INTEGER, mod(me + 2, n), 7, MPI_COMM_WORLD, req, ierr)
  call MPI_ISEND(iv, 6, MPI_INTEGER, mod(me + 2, n), 7, MPI_COMM_WORLD, k, ierr)
  call MPI_WAIT(req, status, ierr)
  call MPI_WAIT(k, status, ierr)
  x = me
  call MPI_SENDRECV(x, 2, MPI_DOUBLE_PRECISION, mod(me + 3, n), 8, y, 2, &
                    MPI_DOUBLE_PRECISION, mod(me + 1, n), 8, MPI_COMM_WORLD, status, ierr)
  bc = 3
  call MPI_BCAST(bc, 5, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  s = me
  call MPI_ALLREDUCE(s, t, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_ALLREDUCE(MPI_IN_PLACE, t, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  r = me
  call MPI_REDUCE(r, q, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 1, MPI_COMM_WORLD, ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (me == 0) print *, 'sum', t(1)
  call MPI_FINALIZE(ierr)
end program mpi_known_f
! SPDX-License-Identifier: GPL-2.0-or-later
