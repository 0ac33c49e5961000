// C++ new/delete, new[]/delete[], and an exception that unwinds frames.
#include <stdexcept>
#include <vector>

struct Particle { double x, y, z, m; };

static double thrower(int k)
{
   if (k == 2)
      throw std::runtime_error("boom");
   return k;
}

int main()
{
   double s = 0;
   for (int k = 0; k < 4; k++) {
      Particle *p = new Particle{1, 2, 3, 4};   // line 18
      double *v = new double[100];              // line 19
      for (int i = 0; i < 100; i++)
         v[i] = p->m * i;
      s += v[50];
      try {
         s += thrower(k);
      } catch (const std::exception &) {
         s -= 1;
      }
      delete[] v;
      delete p;
   }
   return s < 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
