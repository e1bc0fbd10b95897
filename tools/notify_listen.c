/*
 * notify_listen: the service manager's end of sd_notify(3), for the tests:
 * binds a datagram socket at PATH (what systemd passes as NOTIFY_SOCKET)
 * and prints every assignment each datagram carries, one a line, as
 * "MS KEY=VALUE" (MS: milliseconds since it started), flushed at once so
 * that a test can follow the file.  Runs until killed.
 *
 *   notify_listen PATH
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
bind_at(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "notify_listen: path too long\n");
		return -1;
	}
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		perror("notify_listen: bind");
		return -1;
	}
	return fd;
}

int
main(int argc, char **argv)
{
	long long t0 = now_ms();
	char buf[4097];
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: notify_listen PATH\n");
		return 2;
	}
	if ((fd = bind_at(argv[1])) < 0)
		return 1;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
		char *save = NULL;

		if (n < 0)
			continue;
		buf[n] = '\0';
		for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			printf("%lld %s\n", now_ms() - t0, line);
		fflush(stdout);
	}
}
