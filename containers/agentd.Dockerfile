# The reference agent image: cmd/agentd's static binary and nothing else, so
# that it builds without a registry (BuildAgentImage puts the binary in the
# build context). No VOLUME: the runtime mounts a labelled volume at /data,
# and an image volume would leave unlabelled anonymous volumes behind.
FROM scratch
COPY agentd /agentd
EXPOSE 8080
ENTRYPOINT ["/agentd"]
