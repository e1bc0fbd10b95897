/* Keys and values as the gateway has them (ha_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "ha/ha_internal.h"

/* root + key, base64 (heap). */
char *
ha_key64(const struct ha *ha, const char *key)
{
	char full[HA_ROOT_LEN + 128];

	snprintf(full, sizeof(full), "%s%s", ha->root, key);
	return etcd_b64(full, strlen(full));
}

/* The first kv of a range reply: its value (heap, NUL-terminated) and mod
 * revision; NULL when there is none. */
char *
ha_first_kv(json_t *reply, size_t *len, int64_t *mod_rev)
{
	json_t *kv = json_array_get(json_object_get(reply, "kvs"), 0);
	const char *v = json_string_value(json_object_get(kv, "value"));

	if (kv == NULL)
		return NULL;
	*mod_rev = etcd_int(kv, "mod_revision");
	if (v == NULL) {		/* an empty value is left out */
		*len = 0;
		return xstrdup("");
	}
	return etcd_unb64(v, len);
}
