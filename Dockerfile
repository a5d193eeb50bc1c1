# Multi-stage build of the one recruitd binary; docker-compose.yml runs it as api, mcp, worker
# and the one-shot migrate service.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/recruitd ./cmd/recruitd

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/recruitd /usr/local/bin/recruitd
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/recruitd"]
CMD ["api"]
