// The audit log's peer for the tests (Tests/FhirBlocksServerTests/HTTP/TransparencyLogPeerTests.swift):
// Go's golang.org/x/mod/sumdb/note opens the server's checkpoint with the server's verifier key,
// and golang.org/x/mod/sumdb/tlog reads the server's C2SP tiles, checks them against the
// checkpoint's root and proves entries in it. Built offline from Debian's golang-golang-x-mod-dev:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go run scripts/tlog-peer/main.go -url URL -vkey VKEY
//
// It prints "ok <origin> <size>" and exits 0, or prints the failure and exits 1.
package main

import (
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type tiles struct{ base string }

func (t tiles) Height() int { return 8 }

func (t tiles) ReadTiles(list []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(list))
	for i, tile := range list {
		// tlog writes the tile height into its paths (tile/8/L/N); C2SP tlog-tiles leaves it out.
		path := strings.TrimPrefix(tile.Path(), "tile/8/")
		body, err := get(t.base + "/audit/tile/" + path)
		if err != nil {
			return nil, err
		}
		out[i] = body
	}
	return out, nil
}

func (t tiles) SaveTiles([]tlog.Tile, [][]byte) {}

func get(url string) ([]byte, error) {
	response, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer response.Body.Close()
	body, err := io.ReadAll(response.Body)
	if err != nil {
		return nil, err
	}
	if response.StatusCode != 200 {
		return nil, fmt.Errorf("%s answered %d", url, response.StatusCode)
	}
	return body, nil
}

func fail(format string, args ...any) {
	fmt.Printf(format+"\n", args...)
	os.Exit(1)
}

func main() {
	url := flag.String("url", "", "the server's base URL")
	vkey := flag.String("vkey", "", "the log's signed-note verifier key")
	noteFile := flag.String("note", "", "check this note file instead of fetching /audit/checkpoint")
	flag.Parse()

	verifier, err := note.NewVerifier(*vkey)
	if err != nil {
		fail("vkey: %v", err)
	}
	var text []byte
	if *noteFile != "" {
		text, err = os.ReadFile(*noteFile)
	} else {
		text, err = get(*url + "/audit/checkpoint")
	}
	if err != nil {
		fail("checkpoint: %v", err)
	}
	opened, err := note.Open(text, note.VerifierList(verifier))
	if err != nil {
		fail("note.Open: %v", err)
	}
	lines := strings.Split(opened.Text, "\n")
	if len(lines) < 4 {
		fail("checkpoint: fewer than three lines")
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 {
		fail("checkpoint: size %q", lines[1])
	}
	rootBytes, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(rootBytes) != tlog.HashSize {
		fail("checkpoint: root %q", lines[2])
	}
	if *noteFile != "" || size == 0 {
		fmt.Printf("ok %s %d\n", lines[0], size)
		return
	}
	var root tlog.Hash
	copy(root[:], rootBytes)
	tree := tlog.Tree{N: size, Hash: root}
	reader := tlog.TileHashReader(tree, tiles{base: *url})
	computed, err := tlog.TreeHash(size, reader)
	if err != nil || computed != root {
		fail("tree hash from the tiles: %v (%v, want %v)", err, computed, root)
	}
	for _, index := range []int64{0, size / 2, size - 1} {
		leaves, err := reader.ReadHashes([]int64{tlog.StoredHashIndex(0, index)})
		if err != nil {
			fail("leaf %d: %v", index, err)
		}
		proof, err := tlog.ProveRecord(size, index, reader)
		if err != nil {
			fail("proof of %d: %v", index, err)
		}
		if err := tlog.CheckRecord(proof, size, root, index, leaves[0]); err != nil {
			fail("inclusion of %d: %v", index, err)
		}
	}
	if size > 1 {
		old, err := tlog.TreeHash(size-1, reader)
		if err != nil {
			fail("tree hash of %d: %v", size-1, err)
		}
		proof, err := tlog.ProveTree(size, size-1, reader)
		if err != nil {
			fail("consistency proof: %v", err)
		}
		if err := tlog.CheckTree(proof, size, root, size-1, old); err != nil {
			fail("consistency: %v", err)
		}
	}
	fmt.Printf("ok %s %d\n", lines[0], size)
}
