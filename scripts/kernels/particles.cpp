// Short-range particle forces in C++: a small non-inlined function per
// particle, std::vector storage and a neighbour window; call-heavy code.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

struct Particle {
   double x, y, z, fx, fy, fz;
};

__attribute__((noinline)) static void accumulate(std::vector<Particle> &ps, std::size_t i)
{
   Particle &p = ps[i];
   std::size_t lo = i >= 8 ? i - 8 : 0, hi = std::min(ps.size(), i + 9);
   for (std::size_t j = lo; j < hi; j++) {
      if (j == i)
         continue;
      double dx = ps[j].x - p.x, dy = ps[j].y - p.y, dz = ps[j].z - p.z;
      double r2 = dx * dx + dy * dy + dz * dz + 1e-3;
      double inv = 1.0 / (r2 * std::sqrt(r2));
      p.fx += dx * inv;
      p.fy += dy * inv;
      p.fz += dz * inv;
   }
}

int main(int argc, char **argv)
{
   int steps = argc > 1 ? std::atoi(argv[1]) : 160;
   std::vector<Particle> ps(20000);
   for (std::size_t i = 0; i < ps.size(); i++)
      ps[i] = Particle{ double(i % 97), double(i % 89), double(i % 83), 0, 0, 0 };
   for (int t = 0; t < steps; t++) {
      for (std::size_t i = 0; i < ps.size(); i++)
         accumulate(ps, i);
      for (auto &p : ps) {
         p.x += 1e-6 * p.fx;
         p.y += 1e-6 * p.fy;
         p.z += 1e-6 * p.fz;
      }
   }
   std::printf("%g\n", ps[100].x);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
