/* Human-readable output shared by every fabricctl command. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/fabricctl.h"

const char *
cli_str(json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : dflt;
}

static void
upper(char *dst, const char *src, size_t len)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < len; i++)
		dst[i] = src[i] >= 'a' && src[i] <= 'z' ? src[i] - 32 : (src[i] == '_' ? ' ' : src[i]);
	dst[i] = '\0';
}

void
cli_print_table(FILE *out, json_t *rows, const char *const *columns)
{
	const char *cols[64];
	size_t ncols = 0, width[64], i, c;
	char buf[256];
	json_t *row;

	if (json_array_size(rows) == 0) {
		fprintf(out, "(none)\n");
		return;
	}
	if (columns) {
		while (columns[ncols] && ncols < 64)
			ncols++, cols[ncols - 1] = columns[ncols - 1];
	} else {
		const char *key;
		json_t *v;
		json_object_foreach(json_array_get(rows, 0), key, v)
			if (ncols < 64)
				cols[ncols++] = key;
	}
	for (c = 0; c < ncols; c++)
		width[c] = strlen(cli_key_label(cols[c], json_object_get(json_array_get(rows, 0), cols[c]),
		    buf, sizeof(buf)));
	json_array_foreach(rows, i, row)
		for (c = 0; c < ncols; c++) {
			size_t l = strlen(cli_value_text(cols[c], json_object_get(row, cols[c]), buf,
			    sizeof(buf)));
			if (l > width[c])
				width[c] = l;
		}
	for (c = 0; c < ncols; c++) {
		char label[128];
		upper(buf, cli_key_label(cols[c], json_object_get(json_array_get(rows, 0), cols[c]), label,
		    sizeof(label)), sizeof(buf));
		fprintf(out, "%-*s%s", c + 1 < ncols ? (int)width[c] : 0, buf,
		    c + 1 < ncols ? "  " : "\n");
	}
	json_array_foreach(rows, i, row)
		for (c = 0; c < ncols; c++)
			fprintf(out, "%-*s%s", c + 1 < ncols ? (int)width[c] : 0,
			    cli_value_text(cols[c], json_object_get(row, cols[c]), buf, sizeof(buf)),
			    c + 1 < ncols ? "  " : "\n");
}

static int
is_table(json_t *v)
{
	return json_is_array(v) && json_array_size(v) > 0 && json_is_object(json_array_get(v, 0));
}

void
cli_print_generic(FILE *out, json_t *value, int indent)
{
	const char *key;
	char buf[512];
	json_t *v;

	if (is_table(value)) {
		cli_print_table(out, value, NULL);
		return;
	}
	if (!json_is_object(value)) {
		fprintf(out, "%*s%s\n", indent, "", cli_scalar_text(value, buf, sizeof(buf)));
		return;
	}
	json_object_foreach(value, key, v) {
		if (is_table(v)) {
			fprintf(out, "%*s%s:\n", indent, "", key);
			cli_print_table(out, v, NULL);
		} else if (json_is_object(v)) {
			fprintf(out, "%*s%s:\n", indent, "", key);
			cli_print_generic(out, v, indent + 2);
		} else if (json_is_array(v)) {
			size_t i;
			json_t *e;
			fprintf(out, "%*s%s:", indent, "", key);
			json_array_foreach(v, i, e)
				fprintf(out, "%s%s", i ? ", " : " ", cli_scalar_text(e, buf, sizeof(buf)));
			fprintf(out, "%s\n", json_array_size(v) ? "" : " (none)");
		} else {
			char label[128];
			fprintf(out, "%*s%s: %s\n", indent, "", cli_key_label(key, v, label, sizeof(label)),
			    cli_value_text(key, v, buf, sizeof(buf)));
		}
	}
}
