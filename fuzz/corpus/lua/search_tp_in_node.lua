-- search_tp_in_node.lua: the smallest deployment that trains the model, with tensor
-- parallelism kept inside a node (TP traffic stays on NVLink/HCCS).
--
--   strata run lua/search_tp_in_node.lua [model] [cluster] [max_nodes] [top]
--
-- enumerate lists strategies for 1, 2, 4, ... max_nodes nodes, tp up to 2 nodes' worth;
-- filter drops every strategy whose TP group would span nodes; score ranks fewer nodes
-- first and, for the same node count, higher MFU. The best plan is returned (the explorer
-- opens it after `:lua lua/search_tp_in_node.lua`).

local model = arg[1] or "llama3-70b"
local cluster = strata.preset(arg[2] or "dgx-h100", "cluster")
local max_nodes = tonumber(arg[3] or "16")
local top = tonumber(arg[4] or "8")
local node = cluster.node_devices

local base = strata.plan{model = model, cluster = cluster, devices = node,
  strategy = {global_batch = 1024, seq_length = 8192}}

local function enumerate(job)
  local list = {}
  local nodes = 1
  while nodes <= max_nodes do
    local devices = nodes * node
    local tp = 1
    while tp <= 2 * node and tp <= devices do
      for pp = 1, job.layers do
        if devices % (tp * pp) == 0 and pp <= 16 then
          for _, mbs in ipairs{1, 2} do
            for _, rc in ipairs{"selective", "full"} do
              list[#list + 1] = {devices = devices, tp = tp, pp = pp, micro_batch = mbs,
                                 recompute = rc, zero = 1}
            end
          end
        end
      end
      tp = tp * 2
    end
    nodes = nodes * 2
  end
  return list
end

local results = strata.search(base, {
  top = top,
  enumerate = enumerate,
  filter = function(s) return s.tp <= node end,
  score = function(r)
    local nodes = r.devices // node
    return -nodes + r.throughput.mfu   -- MFU < 1: fewer nodes always wins
  end,
})
if #results == 0 then error("no strategy fits on up to " .. max_nodes .. " nodes") end

print(string.format("%s on %s, tp <= %d (one node), fewest nodes first", model, cluster.name, node))
print(" # nodes  tp  pp   dp mbs recompute  peak GiB   MFU  tokens/s")
for i, r in ipairs(results) do
  local s = r.strategy
  print(string.format("%2d %5d %3d %3d %4d %3d %-9s %9.1f %5.1f%% %9.0f", i, r.devices // node, s.tp,
    s.pp, s.dp, s.micro_batch, s.recompute, r.memory.peak_gib, 100 * r.throughput.mfu,
    r.throughput.tokens_per_s))
end
local c = results[1].search
print(string.format("considered %d strategies: %d filtered out (tp across nodes), %d evaluated, %d fit",
  c.enumerated, c.filtered, c.evaluated, c.fit))
return results[1].plan
