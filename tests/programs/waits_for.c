/* Runs until the file argv[1] exists (at most about 60 s), then exits. */
#include <unistd.h>

int main(int argc, char **argv)
{
   for (int i = 0; i < 6000 && argc > 1 && access(argv[1], F_OK) != 0; i++)
      usleep(10000);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
