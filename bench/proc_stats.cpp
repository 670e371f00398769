// Runs a command N times and reports its wall time (min/median/max) and peak RSS (max over runs):
// the whole-process cost a user pays for `fakeexport export`, startup and exit included.
// Usage: fe_proc_stats [-n N] -- COMMAND [ARGS...]   (the command's stdout goes to /dev/null)
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  int n = 10, i = 1;
  if (i + 1 < argc && std::strcmp(argv[i], "-n") == 0) n = std::atoi(argv[i + 1]), i += 2;
  if (i < argc && std::strcmp(argv[i], "--") == 0) ++i;
  if (i >= argc || n < 1) {
    std::fprintf(stderr, "usage: %s [-n N] -- COMMAND [ARGS...]\n", argv[0]);
    return 2;
  }
  std::vector<double> ms;
  long peak_kib = 0;
  for (int r = 0; r < n; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid == 0) {
      int null = open("/dev/null", O_WRONLY);
      dup2(null, 1);
      execvp(argv[i], argv + i);
      std::perror(argv[i]);
      _exit(127);
    }
    int status = 0;
    struct rusage ru{};
    wait4(pid, &status, 0, &ru);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "fe_proc_stats: the command failed (status %d)\n", status);
      return 1;
    }
    peak_kib = std::max(peak_kib, ru.ru_maxrss);  // Linux: KiB
  }
  std::sort(ms.begin(), ms.end());
  std::printf("runs %d  wall ms: min %.1f  median %.1f  max %.1f  peak RSS %.1f MiB\n", n, ms.front(), ms[ms.size() / 2],
              ms.back(), peak_kib / 1024.0);
  return 0;
}
