"""Decides proxying for URLs as the real AWS CLI does.

Input (stdin): a JSON list of cases, each {"env": [[name, value], ...],
"urls": [...]}; output: a JSON list, one a case, of lists, one a URL, of
the proxy URL botocore would use for it, or null for a direct connection.

Each case replaces the whole environment (in the given order: Python's
rules depend on it), then asks the botocore that Debian's awscli bundles
(/usr/lib/python3/dist-packages/awscli/botocore) exactly what its HTTP
session asks: get_environ_proxies(url), then
ProxyConfiguration.proxy_url_for(url). Run with Debian's /usr/bin/python3.
"""

import json
import os
import sys

sys.path.insert(0, "/usr/lib/python3/dist-packages/awscli")

from botocore.httpsession import ProxyConfiguration  # noqa: E402
from botocore.utils import get_environ_proxies  # noqa: E402


def decide(env, urls):
    os.environ.clear()
    for name, value in env:
        os.environ[name] = value
    return [ProxyConfiguration(proxies=get_environ_proxies(u)).proxy_url_for(u) for u in urls]


def main():
    cases = json.load(sys.stdin)
    json.dump([decide(c["env"], c["urls"]) for c in cases], sys.stdout)


if __name__ == "__main__":
    main()
