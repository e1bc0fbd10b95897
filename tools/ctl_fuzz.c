/*
 * ctl_fuzz: throw malformed and oversized requests at a fabricd control
 * socket and check that every one is answered with a structured error and
 * that the daemon still serves a good request afterwards.
 *
 * usage: ctl_fuzz SOCKET COUNT
 *        ctl_fuzz SOCKET stall SECONDS   (send half a request, then sit)
 * Exit 0 when every bad request got exactly one error reply; 1 otherwise.
 * Used by tests/integration/core_socket_robustness.sh.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <jansson.h>

static int
dial(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		perror("connect");
		exit(1);
	}
	return fd;
}

static void
send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);
		if (n <= 0) {
			perror("write");
			exit(1);
		}
		buf += n;
		len -= (size_t)n;
	}
}

/* Read one reply line; returns it parsed, or NULL on EOF. */
static json_t *
read_reply(int fd)
{
	static char buf[1 << 20];
	static size_t have;
	char *nl;

	for (;;) {
		if ((nl = memchr(buf, '\n', have)) != NULL) {
			json_t *j = json_loadb(buf, (size_t)(nl - buf), 0, NULL);
			size_t used = (size_t)(nl - buf) + 1;
			memmove(buf, buf + used, have - used);
			have -= used;
			return j ? j : json_string("unparseable");
		}
		ssize_t n = read(fd, buf + have, sizeof(buf) - have);
		if (n <= 0)
			return NULL;
		have += (size_t)n;
	}
}

/* The i-th bad request (a full line, newline included). */
static char *
bad_request(unsigned i, size_t *len)
{
	static const char *const fixed[] = {
		"{", "[]", "null", "\"str\"", "{\"v\":1}", "{\"v\":1,\"id\":\"x\",\"cmd\":\"status\"}",
		"{\"v\":99,\"id\":1,\"cmd\":\"status\"}", "{\"v\":1,\"id\":2,\"cmd\":\"no-such\"}",
		"{\"v\":1,\"id\":3,\"cmd\":\"status\",\"args\":[1]}", "{\"v\":1,\"id\":4,\"cmd\":7}",
		"{\"v\":1,\"id\":5,\"id\":6,\"cmd\":\"status\"}", "{\"v\":1.5,\"id\":1,\"cmd\":\"x\"}",
		"\xff\xfe\x00garbage", "{\"v\":1,\"id\":7,\"cmd\":\"events\",\"args\":{\"since\":\"yesterday-ish\"}}",
		"{\"v\":1,\"id\":8,\"cmd\":\"events\",\"args\":{\"limit\":-5}}",
	};
	size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	char *out;

	if (i % 10 == 9) {		/* oversized: 70-200 KB without a newline inside */
		*len = 70000 + (i * 7919u) % 130000;
		out = malloc(*len + 1);
		memset(out, 'A' + i % 26, *len);
		out[*len] = '\n';
		*len += 1;
		return out;
	}
	if (i % 10 == 8) {		/* deep nesting */
		*len = 5000;
		out = malloc(*len + 1);
		memset(out, '[', *len);
		out[*len] = '\n';
		*len += 1;
		return out;
	}
	if (i % 3 == 0) {		/* random bytes (no newline) */
		*len = 1 + (i * 131u) % 300;
		out = malloc(*len + 1);
		for (size_t k = 0; k < *len; k++) {
			out[k] = (char)((i * 31u + k * 17u) % 255);
			if (out[k] == '\n')
				out[k] = ' ';
		}
		if (out[0] == '{' || out[0] == ' ')
			out[0] = '#';
		out[*len] = '\n';
		*len += 1;
		return out;
	}
	*len = strlen(fixed[i % nfixed]) + 1;
	out = malloc(*len);
	memcpy(out, fixed[i % nfixed], *len - 1);
	out[*len - 1] = '\n';
	return out;
}

int
main(int argc, char **argv)
{
	unsigned count, errors = 0, bad = 0;
	const char *good = "{\"v\":1,\"id\":42,\"cmd\":\"status\"}\n";
	json_t *r;
	int fd;

	if (argc < 3 || (strcmp(argv[2], "stall") == 0 && argc != 4))
		return fprintf(stderr, "usage: ctl_fuzz SOCKET COUNT\n"), 2;
	if (strcmp(argv[2], "stall") == 0) {
		fd = dial(argv[1]);
		send_all(fd, "{\"v\":1,\"id\":1,\"cmd\":\"sta", 24);
		sleep((unsigned)atoi(argv[3]));
		return 0;
	}
	count = (unsigned)atoi(argv[2]);
	fd = dial(argv[1]);
	for (unsigned i = 0; i < count; i++) {
		size_t len;
		char *req = bad_request(i, &len);
		if (i % 100 == 99) {	/* a fresh connection now and then */
			close(fd);
			fd = dial(argv[1]);
		}
		send_all(fd, req, len);
		free(req);
		if ((r = read_reply(fd)) == NULL) {
			fprintf(stderr, "request %u: connection closed without a reply\n", i);
			return 1;
		}
		json_t *err = json_object_get(r, "error");
		if (!json_is_false(json_object_get(r, "ok")) ||
		    !json_is_string(json_object_get(err, "code"))) {
			char *s = json_dumps(r, JSON_COMPACT);
			fprintf(stderr, "request %u: not an error reply: %s\n", i, s);
			free(s);
			bad++;
		} else {
			errors++;
		}
		json_decref(r);
	}
	send_all(fd, good, strlen(good));
	r = read_reply(fd);
	if (r == NULL || !json_is_true(json_object_get(r, "ok")) ||
	    json_integer_value(json_object_get(r, "id")) != 42) {
		fprintf(stderr, "daemon did not serve a good request afterwards\n");
		return 1;
	}
	json_decref(r);
	printf("%u bad requests, %u error replies, %u wrong replies; good request served\n",
	    count, errors, bad);
	return bad ? 1 : 0;
}
