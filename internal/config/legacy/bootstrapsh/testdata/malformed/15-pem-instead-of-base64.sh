#!/bin/bash
# want: error line 7: it looks like a PEM certificate: give the base64 encoding of the whole PEM text
CA='-----BEGIN CERTIFICATE-----
MIIBfzCCASWgAwIBAgIUB3V7fULKlAdtaOcX3965LPPfERgwCgYIKoZIzj0EAwIw
-----END CERTIFICATE-----'
/etc/eks/bootstrap.sh my-cluster --apiserver-endpoint https://x.eks.amazonaws.com \
  --b64-cluster-ca "$CA"
