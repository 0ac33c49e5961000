! A Fortran program: allocatable arrays and a nested loop.
program axpy
  implicit none
  integer, parameter :: n = 1000
  real(8), allocatable :: x(:), y(:)
  integer :: i, k
  allocate(x(n), y(n))
  do i = 1, n
     x(i) = i
     y(i) = 0
  end do
  do k = 1, 5
     do i = 1, n
        y(i) = y(i) + 2.0d0 * x(i)
     end do
  end do
  print *, y(n)
  deallocate(x, y)
end program axpy
! SPDX-License-Identifier: GPL-2.0-or-later
