package etcdcluster

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
)

var httpClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: false, MaxIdleConnsPerHost: 8}}

// ErrRefused wraps a request that never reached a member (the connection
// was refused): it definitely did not take effect.
var ErrRefused = errors.New("refused")

// post sends a JSON request to etcd's v3 gateway and decodes the answer.
func post(ctx context.Context, url string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := httpClient.Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return fmt.Errorf("%w: %v", ErrRefused, err)
		}
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s: %s", url, resp.Status, bytes.TrimSpace(data))
	}
	return json.Unmarshal(data, out)
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// Get reads key from the member at base (a linearizable read).
func Get(ctx context.Context, base, key string) (int64, bool, error) {
	var out struct {
		Kvs []struct {
			Value string `json:"value"`
		} `json:"kvs"`
	}
	if err := post(ctx, base+"/v3/kv/range", map[string]string{"key": b64(key)}, &out); err != nil {
		return 0, false, err
	}
	if len(out.Kvs) == 0 {
		return 0, false, nil
	}
	raw, err := base64.StdEncoding.DecodeString(out.Kvs[0].Value)
	if err != nil {
		return 0, false, err
	}
	v, err := strconv.ParseInt(string(raw), 10, 64)
	return v, true, err
}

// Put writes v to key.
func Put(ctx context.Context, base, key string, v int64) error {
	var out struct{}
	return post(ctx, base+"/v3/kv/put", map[string]string{"key": b64(key), "value": b64(strconv.FormatInt(v, 10))}, &out)
}

// CAS writes v to key if it holds expect, in a transaction; it reports
// whether it did.
func CAS(ctx context.Context, base, key string, expect, v int64) (bool, error) {
	txn := map[string]any{
		"compare": []map[string]string{{"key": b64(key), "result": "EQUAL", "target": "VALUE", "value": b64(strconv.FormatInt(expect, 10))}},
		"success": []map[string]any{{"request_put": map[string]string{"key": b64(key), "value": b64(strconv.FormatInt(v, 10))}}},
	}
	var out struct {
		Succeeded bool `json:"succeeded"`
	}
	err := post(ctx, base+"/v3/kv/txn", txn, &out)
	return out.Succeeded, err
}
