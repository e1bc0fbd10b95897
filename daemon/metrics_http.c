/*
 * GET /metrics over HTTP with libevent's evhttp, on the daemon's loop:
 * what Prometheus scrapes.  The body is metrics_build_start()'s text, the text
 * `fabricctl metrics` prints.  Nothing but GET and HEAD of /metrics is
 * served; headers and bodies are bounded and a silent client is dropped,
 * so a scraper (or anyone who can reach the port) cannot stall the loop.
 * The endpoint has no authentication: bind it to a loopback or management
 * address (see docs/metrics.md).
 */
#include <stdlib.h>
#include <string.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/fabricd.h"
#include "daemon/metrics.h"

#define HTTP_TIMEOUT_S		10
#define HTTP_MAX_HEADERS	8192
#define HTTP_MAX_BODY		1024

static struct evhttp *http;

static void
free_text(const void *data, size_t len, void *arg)
{
	(void)len;
	(void)arg;
	free((void *)data);
}

/* The text is built over several turns of the loop (metrics_build_start);
 * the reply goes when it is complete.  A client that left meanwhile is
 * noticed by evhttp, which then frees the request at the reply. */
static void
on_built(char *text, size_t len, void *arg)
{
	struct evhttp_request *req = arg;
	struct evbuffer *body;

	if (text == NULL) {		/* shutdown */
		evhttp_send_error(req, HTTP_SERVUNAVAIL, NULL);
		return;
	}
	/* handed to the buffer, not copied: a large fabric's text is megabytes */
	if ((body = evbuffer_new()) == NULL ||
	    evbuffer_add_reference(body, text, len, free_text, NULL) != 0) {
		free(text);
		if (body)
			evbuffer_free(body);
		evhttp_send_error(req, HTTP_INTERNAL, NULL);
		return;
	}
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
	    "text/plain; version=0.0.4; charset=utf-8");
	evhttp_send_reply(req, HTTP_OK, "OK", body);
	evbuffer_free(body);
}

static void
on_metrics(struct evhttp_request *req, void *arg)
{
	(void)arg;
	metrics_build_start(on_built, req);
}

static void
on_other(struct evhttp_request *req, void *arg)
{
	(void)arg;
	evhttp_send_error(req, HTTP_NOTFOUND, "only /metrics is served here");
}

int
metrics_http_start(struct fabricd *fd)
{
	const char *listen = fd->config->metrics_listen;
	char host[256];
	const char *colon;
	long port;

	if (listen == NULL || listen[0] == '\0')
		return 0;
	/* the configuration checked the form: HOST:PORT or [V6]:PORT */
	colon = strrchr(listen, ':');
	port = strtol(colon + 1, NULL, 10);
	snprintf(host, sizeof(host), "%.*s", (int)(colon - listen), listen);
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	if ((http = evhttp_new(fd->base)) == NULL)
		return -1;
	evhttp_set_allowed_methods(http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD);
	evhttp_set_timeout(http, HTTP_TIMEOUT_S);
	evhttp_set_max_headers_size(http, HTTP_MAX_HEADERS);
	evhttp_set_max_body_size(http, HTTP_MAX_BODY);
	evhttp_set_cb(http, "/metrics", on_metrics, NULL);
	evhttp_set_gencb(http, on_other, NULL);
	if (evhttp_bind_socket(http, host, (ev_uint16_t)port) != 0) {
		log_warn("metrics: cannot listen on %s", listen);
		evhttp_free(http);
		http = NULL;
		return -1;
	}
	log_info("metrics: serving http://%s/metrics", listen);
	return 0;
}

void
metrics_http_stop(void)
{
	if (http)
		evhttp_free(http);
	http = NULL;
}
