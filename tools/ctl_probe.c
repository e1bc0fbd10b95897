/*
 * ctl_probe: a raw client of fabricd's control socket for the tests that
 * must do what fabricctl never does: pass any descriptor, hold many
 * connections, send without reading, and time replies from inside one
 * process (so that a process start is not counted as the daemon's delay).
 *
 *   ctl_probe SOCK send JSON [FILE...]    one request line; each FILE is
 *                      opened O_RDONLY|O_NONBLOCK and passed with it
 *                      (SCM_RIGHTS); prints the final reply line; exit 0
 *                      when one came
 *   ctl_probe SOCK lines TEXT             send TEXT (lines) as it is, print
 *                      every line received for 2 s, then "eof" if the daemon
 *                      closed the connection
 *   ctl_probe SOCK hold N SECS            open N connections, keep them
 *                      SECS at most (less once every one is refused or
 *                      closed); prints "accepted A refused R closed C"
 *                      (refused: the daemon's error line, then a close;
 *                      closed: by the daemon, silently, after being
 *                      accepted) and, for the closed ones,
 *                      "first_close_ms T"
 *   ctl_probe SOCK flood N SECS           N connections that send status
 *                      requests for SECS and never read a reply
 *   ctl_probe SOCK latency COUNT          COUNT status requests, one fresh
 *                      connection each; prints "max_ms M median_ms D"
 *   ctl_probe SOCK poll MS STOPFILE       one status request on a fresh
 *                      connection every MS ms until STOPFILE exists; one
 *                      line each: "T ok|fail START" (T the reply's ms,
 *                      rounded up, or the ms until it failed; a reply
 *                      not complete within 10 s fails; START in ms since
 *                      the epoch).  One process: a loaded machine's process
 *                      start-ups neither thin out nor delay the polls.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const char status_req[] = "{\"v\":1,\"id\":1,\"cmd\":\"status\"}\n";

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
dial(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Read until a line that has "ok" (the final reply); print it. */
static int
read_final(int fd, int print)
{
	static char buf[1 << 22];
	size_t have = 0;

	for (;;) {
		char *nl;
		ssize_t n;

		while ((nl = memchr(buf, '\n', have)) != NULL) {
			*nl = '\0';
			if (strstr(buf, "\"ok\":") != NULL) {
				if (print)
					printf("%s\n", buf);
				return 0;
			}
			memmove(buf, nl + 1, have - (size_t)(nl + 1 - buf));
			have -= (size_t)(nl + 1 - buf);
		}
		if (have == sizeof(buf))
			return -1;
		n = read(fd, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		have += (size_t)n;
	}
}

static int
cmd_send(const char *sock, const char *json, int nfiles, char **files)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 8)];
		struct cmsghdr align;
	} u;
	int fds[8], fd, n = 0;
	size_t len = strlen(json);
	static char line[1 << 17];
	struct iovec iov = { .iov_base = line, .iov_len = len + 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (len + 1 > sizeof(line)) {
		fprintf(stderr, "ctl_probe: request too long\n");
		return 2;
	}
	memcpy(line, json, len);
	line[len] = '\n';
	for (int i = 0; i < nfiles && n < 8; i++) {
		if ((fds[n] = open(files[i], O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) < 0) {
			fprintf(stderr, "ctl_probe: %s: %s\n", files[i], strerror(errno));
			return 2;
		}
		n++;
	}
	if ((fd = dial(sock)) < 0) {
		perror("ctl_probe: connect");
		return 2;
	}
	if (n > 0) {
		struct cmsghdr *cm;
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)n);
	}
	if (sendmsg(fd, &mh, MSG_NOSIGNAL) != (ssize_t)(len + 1)) {
		perror("ctl_probe: sendmsg");
		return 2;
	}
	return read_final(fd, 1) == 0 ? 0 : 1;
}

static int
cmd_lines(const char *sock, const char *text)
{
	struct pollfd p;
	double start;
	char buf[65536];
	int fd = dial(sock);
	size_t len = strlen(text);
	static char line[1 << 17];

	if (len + 1 > sizeof(line))
		return 2;
	memcpy(line, text, len);
	line[len] = '\n';
	/* the daemon may close before taking it all: read what came anyway */
	if (fd < 0 || send(fd, line, len + 1, MSG_NOSIGNAL) < 0) {
		perror("ctl_probe");
		return 2;
	}
	start = now_ms();
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	while (now_ms() - start < 2000) {
		ssize_t n;
		if (poll(&p, 1, 100) <= 0)
			continue;
		if ((n = read(fd, buf, sizeof(buf))) <= 0) {
			printf("eof\n");
			return 0;
		}
		fwrite(buf, 1, (size_t)n, stdout);
	}
	return 0;
}

/* A connection the daemon refused gets one line and EOF at once: after
 * connecting them all, whatever is readable within a moment was refused. */
/* One held connection's end: the daemon's refusal is an error line and a
 * close at once (refuse(), control_conn.c); an accepted one is closed with
 * nothing said when idle.  Told apart by what was read, not by when: a
 * loaded machine may refuse late. */
enum held { HELD_OPEN, HELD_REFUSING, HELD_REFUSED, HELD_CLOSED };

static enum held
held_read(int fd, enum held st)
{
	char buf[512];
	ssize_t r = read(fd, buf, sizeof(buf) - 1);

	if (r <= 0)
		return st == HELD_REFUSING ? HELD_REFUSED : HELD_CLOSED;
	buf[r] = '\0';
	return strstr(buf, "\"error\"") ? HELD_REFUSING : st;
}

static int
cmd_hold(const char *sock, int n, double secs)
{
	int *fds = calloc((size_t)n, sizeof(int)), accepted = 0, refused = 0, closed = 0;
	enum held *st = calloc((size_t)n, sizeof(*st));
	struct pollfd *p = calloc((size_t)n, sizeof(*p));
	double start, first_close = -1;

	for (int i = 0; i < n; i++)
		fds[i] = dial(sock);
	start = now_ms();
	for (int i = 0; i < n; i++)
		if (fds[i] < 0)
			refused++;
	while (refused + closed < n && now_ms() - start < secs * 1e3) {
		for (int i = 0; i < n; i++)
			p[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
		if (poll(p, (nfds_t)n, 100) <= 0)
			continue;
		for (int i = 0; i < n; i++) {
			if (fds[i] < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			st[i] = held_read(fds[i], st[i]);
			if (st[i] != HELD_REFUSED && st[i] != HELD_CLOSED)
				continue;
			close(fds[i]);
			fds[i] = -1;
			if (st[i] == HELD_REFUSED) {
				refused++;
				continue;
			}
			closed++;
			if (first_close < 0)
				first_close = now_ms() - start;
		}
	}
	accepted = n - refused;
	printf("accepted %d refused %d closed %d\n", accepted, refused, closed);
	if (first_close >= 0)
		printf("first_close_ms %.0f\n", first_close);
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	free(st);
	free(p);
	return 0;
}

static int
cmd_flood(const char *sock, int n, double secs)
{
	int *fds = calloc((size_t)n, sizeof(int)), open_n = 0;
	double start = now_ms();
	long sent = 0;

	for (int i = 0; i < n; i++) {
		fds[i] = dial(sock);
		open_n += fds[i] >= 0;
	}
	while (now_ms() - start < secs * 1e3) {
		int progress = 0;
		for (int i = 0; i < n; i++) {
			if (fds[i] < 0)
				continue;
			ssize_t w = send(fds[i], status_req, sizeof(status_req) - 1,
			    MSG_DONTWAIT | MSG_NOSIGNAL);
			if (w > 0) {
				sent++;
				progress = 1;
			} else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
				close(fds[i]);	/* dropped by the daemon */
				fds[i] = -1;
			}
		}
		if (!progress)
			usleep(20000);
	}
	printf("flooded %d connections, %ld requests\n", open_n, sent);
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
cmd_latency(const char *sock, int count)
{
	double *t = calloc((size_t)count, sizeof(double));

	for (int i = 0; i < count; i++) {
		double s = now_ms();
		int fd = dial(sock);
		if (fd < 0 || send(fd, status_req, sizeof(status_req) - 1, MSG_NOSIGNAL) < 0 ||
		    read_final(fd, 0) != 0) {
			printf("failed request %d\n", i);
			free(t);
			return 1;
		}
		t[i] = now_ms() - s;
		close(fd);
	}
	qsort(t, (size_t)count, sizeof(double), cmp_double);
	printf("max_ms %.1f median_ms %.1f\n", t[count - 1], t[count / 2]);
	free(t);
	return 0;
}

static double
epoch_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One status request on a fresh connection, its reply within 10 s. */
static int
status_once(const char *sock)
{
	struct timeval tmo = { 10, 0 };
	int fd = dial(sock), r = -1;

	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo)) == 0 &&
	    send(fd, status_req, sizeof(status_req) - 1, MSG_NOSIGNAL) >= 0)
		r = read_final(fd, 0);
	close(fd);
	return r;
}

static int
cmd_poll(const char *sock, int every_ms, const char *stopfile)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (access(stopfile, F_OK) != 0) {
		double start = now_ms(), wall = epoch_ms();
		int r = status_once(sock);
		double took = now_ms() - start, rest;

		printf("%lld %s %lld\n", (long long)(took + 0.999), r == 0 ? "ok" : "fail", (long long)wall);
		rest = every_ms - (now_ms() - start);
		if (rest > 0)
			usleep((useconds_t)(rest * 1000));
	}
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[2], "send") == 0)
		return cmd_send(argv[1], argv[3], argc - 4, argv + 4);
	if (argc == 4 && strcmp(argv[2], "lines") == 0)
		return cmd_lines(argv[1], argv[3]);
	if (argc == 5 && strcmp(argv[2], "hold") == 0)
		return cmd_hold(argv[1], atoi(argv[3]), atof(argv[4]));
	if (argc == 5 && strcmp(argv[2], "flood") == 0)
		return cmd_flood(argv[1], atoi(argv[3]), atof(argv[4]));
	if (argc == 4 && strcmp(argv[2], "latency") == 0)
		return cmd_latency(argv[1], atoi(argv[3]));
	if (argc == 5 && strcmp(argv[2], "poll") == 0 && atoi(argv[3]) > 0)
		return cmd_poll(argv[1], atoi(argv[3]), argv[4]);
	fprintf(stderr, "usage: ctl_probe SOCK send JSON [FILE...] | lines TEXT | hold N SECS | "
	    "flood N SECS | latency COUNT | poll MS STOPFILE\n");
	return 2;
}
