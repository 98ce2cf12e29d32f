#!/bin/bash
# want: error line 3: --enable-docker-bridge yes: must be true or false (bootstrap.sh runs the value as a command)
/etc/eks/bootstrap.sh my-cluster --enable-docker-bridge yes
