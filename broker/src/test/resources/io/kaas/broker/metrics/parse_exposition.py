"""Parses a metrics exposition from stdin with the Prometheus project's own Python parser
(Debian's python3-prometheus-client) and prints it as JSON for PrometheusText.

argv[1] is "text" (the Prometheus text format 0.0.4) or "openmetrics" (OpenMetrics 1.0, whose parser
also checks histograms: buckets cumulative, +Inf equal to _count). A parse error exits 1 with the
parser's message on stderr. Values are printed as strings so that NaN and the infinities survive JSON.
"""
import json
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics
from prometheus_client.parser import text_string_to_metric_families as parse_text


def java_double(v):
    v = float(v)
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    return repr(v)


def main():
    parse = {"text": parse_text, "openmetrics": parse_openmetrics}[sys.argv[1]]
    text = sys.stdin.read()
    families = []
    try:
        for f in parse(text):
            families.append({
                "name": f.name,
                "type": f.type,
                "help": f.documentation,
                "samples": [{"name": s.name, "labels": s.labels, "value": java_double(s.value)} for s in f.samples],
            })
    except ValueError as e:
        print("not a valid %s exposition: %s" % (sys.argv[1], e), file=sys.stderr)
        sys.exit(1)
    json.dump(families, sys.stdout)


main()
