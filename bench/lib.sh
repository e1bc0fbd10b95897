# Helpers shared by bench/run.sh and bench/subnets.sh: the clock, peak
# memory settled after subnet up, medians and ratios of result columns.
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "") print "-"; else printf "%.3f", b - a }'; }
peak_rss_mb() { awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null; }
# settled_peak_rss_mb PID: the peak once it has stopped moving (the same for
# 3 s, at most 60 s after subnet up).  Read at "up" it would miss what an SM
# still does just after (stores, a first polling round) and vary from run to
# run by up to a third.
settled_peak_rss_mb() {
	_last= _same=0 _i=0
	while [ $_same -lt 6 ] && [ $_i -lt 120 ]; do
		_r=$(peak_rss_mb "$1")
		[ -n "$_r" ] || break
		if [ "$_r" = "$_last" ]; then _same=$((_same + 1)); else _same=0; _last=$_r; fi
		_i=$((_i + 1))
		sleep 0.5
	done
	echo "${_last:--}"
}

# median FILE COLUMN [FORMAT]: the median of a column ("-" entries ignored).
median() {
	awk -v c="$2" -v f="${3:-%.3f}" '$c != "-" { sub(/\(.*/, "", $c); v[n++] = $c + 0 }
	    END { if (n == 0) { print "-"; exit }
		for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		m = n % 2 ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2
		printf(m == int(m) ? "%d" : f, m) }' "$1"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { sub(/\(.*/, "", a); sub(/\(.*/, "", b);
	if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else printf "-" }'; }
