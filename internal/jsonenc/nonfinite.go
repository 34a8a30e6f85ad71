package jsonenc

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// NonFinite returns the JSON Pointer of the first NaN or infinite float
// in v, as encoding/json names its fields, and whether there is one.
func NonFinite(v reflect.Value) (string, bool) { return nonFinite(v, "", 0) }

// nonFinite returns the JSON Pointer, under path, of the first NaN or
// infinite float in v, as encoding/json names its fields.
func nonFinite(v reflect.Value, path string, depth int) (string, bool) {
	if depth > 64 {
		return "", false
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		return path, math.IsNaN(f) || math.IsInf(f, 0)
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", false
		}
		return nonFinite(v.Elem(), path, depth+1)
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if p, ok := nonFinite(v.Index(i), path+"/"+strconv.Itoa(i), depth+1); ok {
				return p, true
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if p, ok := nonFinite(it.Value(), path+"/"+pointerToken(fmt.Sprint(it.Key().Interface())), depth+1); ok {
				return p, true
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() && !sf.Anonymous {
				continue
			}
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if name == "-" && sf.Tag.Get("json") == "-" {
				continue
			}
			sub := path
			if name != "" || !sf.Anonymous {
				if name == "" {
					name = sf.Name
				}
				sub = path + "/" + pointerToken(name)
			}
			if p, ok := nonFinite(v.Field(i), sub, depth+1); ok {
				return p, true
			}
		}
	}
	return "", false
}

// pointerToken escapes s as a JSON Pointer reference token (RFC 6901).
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
