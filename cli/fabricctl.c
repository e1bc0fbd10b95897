/*
 * fabricctl: a thin client of fabricd's control socket.
 *
 * Exit status: 0 success; 1 the daemon reported an error or a check
 * failed (a result may carry "exit_code" to say which: preflight uses 0, 1,
 * 2); 2 usage error, no daemon, or protocol mismatch.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli/fabricctl.h"
#include "cli/fanout.h"
#include "cli/parser.h"
#include "cli/remote.h"
#include "common/file.h"
#include "common/proto.h"
#include "common/spec.h"

#define EXIT_DAEMON_ERROR 1
#define EXIT_USAGE 2
#define RUN_NOT_MASTER (-10)	/* a standby sent us to its master */

/* --remote and its certificate (cli/remote.h); naddr 0: the socket */
static struct cli_remote remote;

static const struct cli_formatter *const formatter_lists[] = {
	fmt_core, fmt_sm, fmt_partitions, fmt_roce_qos, fmt_health, fmt_validation,
};

static const struct cli_formatter *
find_formatter(const char *wire)
{
	for (size_t l = 0; l < sizeof(formatter_lists) / sizeof(formatter_lists[0]); l++)
		for (const struct cli_formatter *f = formatter_lists[l]; f->cmd; f++)
			if (strcmp(f->cmd, wire) == 0)
				return f;
	return NULL;
}

static int
connect_daemon(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "fabricctl: socket path too long: %s\n", path);
		return -1;
	}
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		int err = errno;

		fprintf(stderr, "fabricctl: cannot connect to fabricd at %s: %s\n", path,
		    strerror(err));
		/* what to do next, by why it failed */
		if (err == ENOENT || err == ECONNREFUSED)
			fprintf(stderr, "fabricctl: is fabricd running? (systemctl start fabricd; "
			    "on the simulated fabric: make sim) Another socket: -s PATH or "
			    "FABRICD_SOCKET\n");
		else if (err == EACCES || err == EPERM)
			fprintf(stderr, "fabricctl: the socket admits root and the groups "
			    "admin_group and read_group name (fabricd.yaml(5))\n");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/*
 * Arguments of type FILE (common/spec.h) name a file that fabricctl opens
 * here, with the caller's own rights, and hands to the daemon as a
 * descriptor: the daemon never opens a path for a client.  O_NONBLOCK so
 * that a FIFO cannot hang the open; the daemon checks the type again.
 */
#define CLI_MAX_FILES 4

struct cli_files {
	int	 fd[CLI_MAX_FILES];
	size_t	 n;
};

static int
open_file_arg(const char *path, struct cli_files *files, json_t **value)
{
	char *abs = NULL, cwd[4096];
	int fd;

	if (files->n == CLI_MAX_FILES)
		return -1;
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) < 0) {
		fprintf(stderr, "fabricctl: %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* the name only labels messages (FILE:LINE:COLUMN); make it absolute
	 * so that it means the same in the daemon's log */
	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)) != NULL &&
	    asprintf(&abs, "%s/%s", cwd, path) < 0)
		abs = NULL;
	*value = json_pack("{s:i, s:s}", "fd", (int)files->n, "name", abs ? abs : path);
	free(abs);
	files->fd[files->n++] = fd;
	return 0;
}

/* Over TLS no descriptor travels: the file is read here, with the
 * caller's rights and the daemon's bound, and sent inline. */
static int
inline_file_arg(const char *path, json_t **value)
{
	const char *why;
	char *text, *abs = NULL, cwd[4096];
	size_t len;

	if (file_read_path(path, FILE_MAX_INPUT, &text, &len, &why) != 0) {
		fprintf(stderr, "fabricctl: %s: %s\n", path, why);
		return -1;
	}
	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)) != NULL &&
	    asprintf(&abs, "%s/%s", cwd, path) < 0)
		abs = NULL;
	*value = json_pack("{s:s%, s:s}", "data", text, len, "name", abs ? abs : path);
	free(abs);
	free(text);
	if (*value == NULL)
		fprintf(stderr, "fabricctl: %s: not text that JSON can carry (UTF-8)\n", path);
	return *value ? 0 : -1;
}

static int
open_files(const struct cli_command *cmd, json_t *args, struct cli_files *files)
{
	struct spec sp;

	files->n = 0;
	if (spec_parse(cmd->spec, &sp) != 0)
		return -1;
	for (size_t i = 0; i < sp.n; i++) {
		const char *path = json_string_value(json_object_get(args, sp.arg[i].key));
		json_t *v;

		if (sp.arg[i].type != SPEC_FILE || path == NULL)
			continue;
		if ((remote.naddr ? inline_file_arg(path, &v) : open_file_arg(path, files, &v)) != 0)
			return -1;
		json_object_set_new(args, sp.arg[i].key, v);
	}
	return 0;
}

static void
close_files(struct cli_files *files)
{
	for (size_t i = 0; i < files->n; i++)
		close(files->fd[i]);
	files->n = 0;
}

/* The first chunk of the request carries the descriptors (SCM_RIGHTS):
 * the daemon gives each request the descriptors that arrived with it. */
static int
send_with_fds(int fd, const char *buf, size_t len, const struct cli_files *files)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * CLI_MAX_FILES)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	ssize_t n;

	memset(&u, 0, sizeof(u));
	mh.msg_control = u.buf;
	mh.msg_controllen = CMSG_SPACE(sizeof(int) * files->n);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * files->n);
	memcpy(CMSG_DATA(cm), files->fd, sizeof(int) * files->n);
	do
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -1 : (int)n;
}

static int
send_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Print one reply or stream item; returns the exit status once the
 * final reply arrives, -1 while the stream continues. */
/*
 * The one exit contract: 0 pass, 1 a named fault (something the daemon
 * found wrong in the fabric or its state), 2 a usage error or an
 * inconclusive answer (the request was wrong, or nothing could be judged).
 * A scheduler drains a node on 1 only, so every error that says nothing
 * about the fabric must be 2.
 */
static int
error_exit(const char *code)
{
	static const char *const faults[] = { "not_found", "conflict", "fabric_error",
	    "capacity", "check_failed", NULL };

	for (size_t i = 0; code && faults[i]; i++)
		if (strcmp(code, faults[i]) == 0)
			return EXIT_DAEMON_ERROR;
	return EXIT_USAGE;
}

static int
handle_message(json_t *msg, const struct cli_command *cmd, int json_out)
{
	const struct cli_formatter *fmt = find_formatter(cmd->wire);
	json_t *item = json_object_get(msg, "stream"), *res, *err, *code;
	static bool streamed;	/* a reply that streamed is JSON Lines to its end */

	if (item) {
		streamed = true;
		if (json_out) {
			cli_humanize(item);
			char *s = json_dumps(item, JSON_COMPACT | PROTO_JSON_REAL);
			printf("%s\n", s);
			free(s);
		} else if (fmt && fmt->stream) {
			fmt->stream(item);
		} else {
			cli_print_generic(stdout, item, 0);
		}
		fflush(stdout);
		return -1;
	}
	if (json_is_true(json_object_get(msg, "ok"))) {
		res = json_object_get(msg, "result");
		if (json_out) {
			cli_humanize(res);
			json_dumpf(res, stdout, (streamed ? JSON_COMPACT : JSON_INDENT(2)) | PROTO_JSON_REAL);
			putchar('\n');
		}
		else if (fmt && fmt->result)
			fmt->result(res);
		else
			cli_print_generic(stdout, res, 0);
		code = json_object_get(res, "exit_code");
		return json_is_integer(code) ? (int)json_integer_value(code) : 0;
	}
	err = json_object_get(msg, "error");
	if (json_out) {
		json_t *wrap = json_pack("{s:O}", "error", err ? err : json_null());
		json_dumpf(wrap, stdout, JSON_INDENT(2) | PROTO_JSON_REAL);
		putchar('\n');
		json_decref(wrap);
	}
	fprintf(stderr, "fabricctl: %s: %s\n",
	    json_string_value(json_object_get(err, "code")) ?: "error",
	    json_string_value(json_object_get(err, "message")) ?: "(no message)");
	return error_exit(json_string_value(json_object_get(err, "code")));
}

#define REPLY_MAX (64u << 20)

/* The daemon's reply lines.  Replies can be large (the ports of a big
 * fabric): the line buffer grows up to REPLY_MAX.  ssl: the remote
 * channel, else fd is the socket. */
struct reader {
	int	 fd;
	SSL	*ssl;
	char	*buf;
	size_t	 have, cap;
};

static int
chan_write(struct reader *r, const char *buf, size_t len)
{
	return r->ssl ? cli_tls_write_all(r->ssl, buf, len) : send_all(r->fd, buf, len);
}

/* --subnet NAME: the subnet a request asks about (sm.subnets), NULL none. */
static const char *subnet_opt;

static int
send_request(struct reader *r, const struct cli_command *cmd, json_t *args,
    const struct cli_files *files, int id)
{
	int fd = r->fd;
	json_t *req = json_pack("{s:i, s:i, s:s, s:O, s:s*}", "v", PROTO_VERSION, "id", id,
	    "cmd", cmd->wire, "args", args, "subnet", subnet_opt);
	char *text = json_dumps(req, JSON_COMPACT);
	size_t len = strlen(text), off = 0;
	int rc = 0;

	json_decref(req);
	if (files->n > 0 && (rc = send_with_fds(fd, text, len, files)) >= 0) {
		off = (size_t)rc;
		rc = 0;
	}
	if (rc != 0 || chan_write(r, text + off, len - off) != 0 || chan_write(r, "\n", 1) != 0) {
		if (r->ssl == NULL)
			fprintf(stderr, "fabricctl: write to fabricd failed: %s\n", strerror(errno));
		rc = -1;
	}
	free(text);
	return rc;
}

/* The next message, or NULL (said on stderr) when none can come. */
static json_t *
read_message(struct reader *r)
{
	for (;;) {
		char *nl = memchr(r->buf, '\n', r->have);
		ssize_t n;

		if (nl != NULL) {
			json_t *msg = json_loadb(r->buf, (size_t)(nl - r->buf), 0, NULL);
			size_t used = (size_t)(nl - r->buf) + 1;

			memmove(r->buf, r->buf + used, r->have - used);
			r->have -= used;
			if (msg == NULL)
				fprintf(stderr, "fabricctl: malformed reply from fabricd\n");
			return msg;
		}
		if (r->have == r->cap) {
			char *bigger = r->cap < REPLY_MAX ? realloc(r->buf, r->cap * 2) : NULL;
			if (bigger == NULL) {
				fprintf(stderr, "fabricctl: reply line too long\n");
				return NULL;
			}
			r->buf = bigger;
			r->cap *= 2;
		}
		n = r->ssl ? cli_tls_read(r->ssl, r->buf + r->have, r->cap - r->have) :
		    read(r->fd, r->buf + r->have, r->cap - r->have);
		if (n < 0 && errno == EINTR && r->ssl == NULL)
			continue;
		if (n == -2)
			return NULL;	/* said: the server refused us */
		if (n <= 0) {
			fprintf(stderr, "fabricctl: fabricd closed the connection\n");
			return NULL;
		}
		r->have += (size_t)n;
	}
}

/*
 * A paged result (cli/paging.c): fold it into *acc and ask for the next
 * page on the same connection.  Returns 1 when a request for the next
 * page went out, 0 when msg is the last page (its result replaced by all
 * the pages'), -1 on failure.  Later pages carry no descriptors: a paged
 * command takes no FILE argument.
 */
static int
follow_page(json_t *msg, struct reader *r, const struct cli_command *cmd, json_t *args,
    json_t **acc, int *id)
{
	json_t *res = json_object_get(msg, "result");
	const char *next = cli_page_next(res);
	static const struct cli_files none = { .n = 0 };

	if (!json_is_true(json_object_get(msg, "ok")) || (next == NULL && *acc == NULL))
		return 0;
	if (next && !cli_page_advances(json_string_value(json_object_get(args, "after")), next)) {
		fprintf(stderr, "fabricctl: the daemon's next page does not move forward\n");
		return -1;
	}
	if (cli_page_fold(acc, res) != 0) {
		fprintf(stderr, "fabricctl: a page of the reply does not match the first\n");
		return -1;
	}
	if (next == NULL) {
		json_object_set(msg, "result", *acc);
		return 0;
	}
	json_object_set_new(args, "after", json_string(next));
	return send_request(r, cmd, args, &none, ++*id) == 0 ? 1 : -1;
}

/* A standby's answer to a remote request: not_master, with the master's
 * control address in error.master when it knows it. */
static bool
is_not_master(json_t *msg)
{
	return !json_object_get(msg, "stream") && !json_is_true(json_object_get(msg, "ok")) &&
	    strcmp(json_string_value(json_object_get(json_object_get(msg, "error"), "code")) ?: "",
	    "not_master") == 0;
}

/*
 * The request sent, its replies read and printed until the final one.
 * With redirect set, a not_master answer is not printed: it is handed
 * back in *redirect (the caller tries the master) and RUN_NOT_MASTER
 * returned.
 */
static int
converse(struct reader *r, const struct cli_command *cmd, json_t *args,
    const struct cli_files *files, int json_out, json_t **redirect)
{
	struct cli_text_parts text = { NULL, 0, 0 };
	json_t *acc = NULL, *msg;
	int rc, id = 1, paged, part;

	/* over TLS a refused write is read on: the refusal's reason waits */
	rc = send_request(r, cmd, args, files, id) != 0 && r->ssl == NULL ? EXIT_USAGE : -1;
	while (rc < 0) {
		if ((msg = read_message(r)) == NULL) {
			rc = EXIT_USAGE;
			break;
		}
		if (redirect && is_not_master(msg)) {
			*redirect = msg;
			rc = RUN_NOT_MASTER;
			break;
		}
		if ((part = cli_text_part_take(msg, &text)) == 0 &&
		    cli_text_parts_join(msg, &text) != 0)
			part = -1;
		if (part < 0) {
			fprintf(stderr, "fabricctl: out of memory\n");
			rc = EXIT_USAGE;
		} else if (part > 0) {
			;	/* a part of the result's text: printed with it */
		} else if (json_object_get(msg, "stream") || (paged = follow_page(msg, r, cmd, args,
		    &acc, &id)) == 0)
			rc = handle_message(msg, cmd, json_out);
		else if (paged < 0)
			rc = EXIT_USAGE;
		json_decref(msg);
	}
	json_decref(acc);
	free(text.buf);
	return rc;
}

static int
run_socket(const char *sock, const struct cli_command *cmd, json_t *args, int json_out)
{
	struct reader r = { .fd = -1, .cap = 65536 };
	struct cli_files files = { .n = 0 };
	int rc;

	if (open_files(cmd, args, &files) != 0) {
		close_files(&files);
		return EXIT_USAGE;
	}
	if ((r.buf = malloc(r.cap)) == NULL || (r.fd = connect_daemon(sock)) < 0) {
		close_files(&files);
		free(r.buf);
		return EXIT_USAGE;
	}
	rc = converse(&r, cmd, args, &files, json_out, NULL);
	close_files(&files);
	close(r.fd);
	free(r.buf);
	return rc;
}

static bool
tried_before(char *const *tried, size_t n, const char *addr)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(tried[i], addr) == 0)
			return true;
	return false;
}

/* One remote address: -1 when it could not be reached or the TLS
 * handshake failed (said), else converse()'s answer. */
static int
run_one(const char *addr, const struct cli_command *cmd, json_t *args, int json_out,
    json_t **redirect)
{
	static const struct cli_files none = { .n = 0 };
	struct reader r = { .fd = -1, .cap = 65536 };
	int unreachable, rc;

	/* a server that closes on us must not kill us before we say so */
	signal(SIGPIPE, SIG_IGN);
	if ((r.ssl = cli_tls_connect(addr, &remote, &unreachable)) == NULL)
		return -1;
	if ((r.buf = malloc(r.cap)) == NULL) {
		cli_tls_close(r.ssl);
		return EXIT_USAGE;
	}
	rc = converse(&r, cmd, args, &none, json_out, redirect);
	cli_tls_close(r.ssl);
	free(r.buf);
	return rc;
}

/*
 * --remote A,B,C: each address in turn until one answers; a standby's
 * not_master sends us to the master it names (once per address), else on
 * down the list.  One pass: no address is dialled twice, so two standbys
 * naming each other cannot loop.
 */
static int
run_remote(const struct cli_command *cmd, json_t *args, int json_out)
{
	char *tried[CLI_REMOTE_MAX * 2];
	size_t ntried = 0, next = 0;
	struct cli_files inline_only = { .n = 0 };
	json_t *last = NULL, *redirect;
	char *follow = NULL;
	int rc = EXIT_USAGE;

	if (open_files(cmd, args, &inline_only) != 0)
		return EXIT_USAGE;
	while (ntried < sizeof(tried) / sizeof(tried[0])) {
		const char *addr = follow ? follow : next < remote.naddr ? remote.addr[next++] : NULL;

		if (addr == NULL)
			break;
		if (tried_before(tried, ntried, addr)) {
			free(follow);
			follow = NULL;
			continue;
		}
		tried[ntried++] = strdup(addr);
		free(follow);
		follow = NULL;
		redirect = NULL;
		if ((rc = run_one(tried[ntried - 1], cmd, args, json_out, &redirect)) == -1)
			continue;	/* said why; the next address */
		if (rc != RUN_NOT_MASTER)
			break;
		json_decref(last);
		last = redirect;
		const char *m = json_string_value(json_object_get(json_object_get(last, "error"),
		    "master"));
		if (m)
			follow = strdup(m);
	}
	if (rc == RUN_NOT_MASTER || rc == -1) {	/* nowhere left to go: say the last answer */
		rc = last ? handle_message(last, cmd, json_out) : EXIT_USAGE;
		if (rc == -1)
			rc = EXIT_USAGE;
	}
	json_decref(last);
	free(follow);
	for (size_t i = 0; i < ntried; i++)
		free(tried[i]);
	return rc;
}

static int
run(const char *sock, const struct cli_command *cmd, json_t *args, int json_out)
{
	return remote.naddr ? run_remote(cmd, args, json_out) : run_socket(sock, cmd, args, json_out);
}

/* "help" alone lists the commands; "help partition create" is that
 * command's usage; "help partition" that group's subcommands. */
static int
help(int argc, char **argv)
{
	const struct cli_command *c;
	int used;

	if (argc == 0) {
		cli_usage_all(stdout);
		return 0;
	}
	if ((c = cli_resolve(argc, argv, &used)) == NULL)
		return EXIT_USAGE;
	cli_usage_one(stdout, c);
	return 0;
}

static void
usage(void)
{
	cli_usage_all(stderr);
	exit(EXIT_USAGE);
}

/* The command line's --remote, --cert, --key, --ca, completed by the
 * client config file (--client-config, else FABRICCTL_REMOTE_CONFIG,
 * which alone also selects the remote channel). */
static int
remote_setup(const char *client_config)
{
	if (client_config && *client_config && cli_remote_config(client_config, &remote) != 0)
		return -1;
	if (remote.naddr == 0) {
		if (remote.cert || remote.key || remote.ca) {
			fprintf(stderr, "fabricctl: --cert, --key and --ca go with --remote\n");
			return -1;
		}
		return 0;
	}
	return cli_remote_complete(&remote);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "remote", required_argument, NULL, 'r' },
		{ "cert", required_argument, NULL, 'C' },
		{ "key", required_argument, NULL, 'K' },
		{ "ca", required_argument, NULL, 'A' },
		{ "client-config", required_argument, NULL, 'F' },
		{ "subnet", required_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 }
	};
	const char *client_config = getenv("FABRICCTL_REMOTE_CONFIG");
	const char *sock = getenv("FABRICD_SOCKET");
	const struct cli_command *cmd;
	int ch, json_out = 0, rc;
	json_t *args;

	if (sock == NULL || *sock == '\0')
		sock = FABRICD_DEFAULT_SOCKET;
	/* "+": stop at the first command word; later options are the command's. */
	while ((ch = getopt_long(argc, argv, "+js:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j': json_out = 1; break;
		case 's': sock = optarg; break;
		case 'r': if (cli_remote_addrs(optarg, &remote) != 0) return EXIT_USAGE; break;
		case 'C': free(remote.cert); remote.cert = strdup(optarg); break;
		case 'K': free(remote.key); remote.key = strdup(optarg); break;
		case 'A': free(remote.ca); remote.ca = strdup(optarg); break;
		case 'F': client_config = optarg; break;
		case 'N': subnet_opt = optarg; break;
		case 'V': printf("fabricctl %s (protocol %d)\n", FABRICD_VERSION, PROTO_VERSION);
			return 0;
		case 'h': cli_usage_all(stdout); return 0;
		default: usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (remote_setup(client_config) != 0)
		return EXIT_USAGE;
	if (argc == 0)
		usage();
	if (strcmp(argv[0], "help") == 0)
		return help(argc - 1, argv + 1);
	if (strcmp(argv[0], "completion") == 0) {
		if (argc != 2 || strcmp(argv[1], "bash") != 0) {
			fprintf(stderr, "usage: fabricctl completion bash\n");
			return EXIT_USAGE;
		}
		cli_completion_bash(stdout);
		return 0;
	}
	/* --json and --subnet are global but may also follow the command. */
	for (int i = 1; i < argc; i++) {
		int words = 0;

		if (strcmp(argv[i], "--json") == 0) {
			json_out = 1;
			words = 1;
		} else if (strncmp(argv[i], "--subnet=", 9) == 0) {
			subnet_opt = argv[i] + 9;
			words = 1;
		} else if (strcmp(argv[i], "--subnet") == 0) {
			if (i + 1 == argc) {
				fprintf(stderr, "fabricctl: --subnet needs a subnet's name\n");
				return EXIT_USAGE;
			}
			subnet_opt = argv[i + 1];
			words = 2;
		}
		if (words) {
			memmove(&argv[i], &argv[i + words], (size_t)(argc - i - words + 1) * sizeof(char *));
			argc -= words;
			i--;
		}
	}
	if ((cmd = cli_parse(argc, argv, &args)) == NULL)
		return EXIT_USAGE;
	/* The host checks run here, not in the daemon: on the host itself, or
	 * on every host through a launcher (cli/local.c, cli/fanout.c). */
	if (strcmp(cmd->wire, "preflight") == 0 && json_is_true(json_object_get(args, "local")))
		rc = cli_preflight_local(args, json_out);
	else if (strcmp(cmd->wire, "preflight") == 0 && json_object_get(args, "fanout"))
		rc = cli_preflight_fanout(args, json_out);
	else
		rc = -1;
	if (rc >= 0) {
		json_decref(args);
		return rc;
	}
	if (strcmp(cmd->wire, "version") == 0 && !json_out)
		printf("fabricctl %s (protocol %d)\n", FABRICD_VERSION, PROTO_VERSION);
	rc = run(sock, cmd, args, json_out);
	json_decref(args);
	cli_remote_free(&remote);
	return rc;
}
