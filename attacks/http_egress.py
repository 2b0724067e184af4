"""GET a URL carrying the nonce from the harness's HTTP responder on each host address."""
import urllib.request
from chaoslib import start, param, say, hosts

nonce = start()
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
for host in hosts():
    url = "http://%s:%s/beacon/%s" % (host, param("HTTP_PORT", "0"), nonce)
    try:
        with opener.open(url, timeout=2) as r:
            say("http:", host, r.status)
    except Exception as e:  # noqa: BLE001 - any failure is just "did not get through"
        say("http to", host, "failed:", e)
