#!/bin/bash
# want: error line 3: --aws-api-retry-attempts many: must be a whole number of retries
/etc/eks/bootstrap.sh my-cluster --aws-api-retry-attempts many
